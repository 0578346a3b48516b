import type { Id128 } from '@qim/store-core';
import { shardOf } from '@qim/store-core';
import { hex } from './support/e2e-env';
import { eventually } from './support/http-client';
import { ServiceStack } from './support/service-stack';

/**
 * Over real Redis + Kafka: the writer commits and publishes; the mailbox routes to 2 shards and
 * fans out; every recipient syncs exactly one entry per message.
 */
describe('send → history → mailbox sync (redis backend, kafka)', () => {
  const stack = new ServiceStack();
  const T = hex(0xe2e);
  const CONV = hex(0xc0ffee);
  const members = Array.from({ length: 6 }, (_, i) => hex(0x100 + i));
  const [alice, bob, carol] = members as [string, string, string];
  const outsider = hex(0xbad);
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const body = (n: number, text = `hello ${n}`) => ({ client_message_id: hex(0xf000 + n), conversation_id: CONV, body: b64(text) });

  beforeAll(async () => {
    await stack.up();
    const r = await stack.writerApi.call('PUT', `/v1/conversations/${CONV}/members`, T, null, { members });
    expect(r).toEqual({ status: 200, body: { conversation_id: CONV, members: members.length } });
  });
  afterAll(() => stack.down());

  async function mailboxOf(user: string) {
    const r = await stack.mailboxApi.call('GET', `/v1/mailboxes/${user}/entries?limit=500`, T, user);
    expect(r.status).toBe(200);
    return r.body as { entries: { seq: string; events: { message: { seq: string; message_id: string } }[] }[]; next_after: string };
  }

  async function waitForAll(messageIds: readonly string[]) {
    await eventually(`every member has ${messageIds.length} entries`, async () => {
      for (const u of members) if ((await mailboxOf(u)).entries.length < messageIds.length) return false;
      return true;
    });
  }

  it('spreads the members over both shards, each shard reporting its status', async () => {
    expect(new Set(members.map((u) => shardOf(T as Id128, u as Id128, 2))).size).toBe(2);
    for (const s of [0, 1]) {
      const st = await stack.mailboxApi.call('GET', `/v1/shards/${s}/status`, T, alice);
      expect(st.status).toBe(200);
      expect(st.body).toMatchObject({ shard: s, epoch: 1, assigned_here: true, stalled: null });
      expect(st.body.kafka).toMatchObject({ end: expect.any(String), lag: expect.any(String) });
    }
  });

  it('sends, pages history and delivers exactly one entry per recipient; a replay changes nothing', async () => {
    const first = await stack.writerApi.call('POST', '/v1/messages', T, alice, body(1));
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ conversation_id: CONV, seq: '1', replay: false });
    const second = await stack.writerApi.call('POST', '/v1/messages', T, bob, body(2));
    expect(second.body.seq).toBe('2');

    const history = await stack.writerApi.call('GET', `/v1/conversations/${CONV}/messages?max_items=10`, T, bob);
    expect(history.status).toBe(200);
    expect(history.body.items.map((i: { seq: string }) => i.seq)).toEqual(['2', '1']);

    const ids = [first.body.message_id, second.body.message_id];
    await waitForAll(ids);
    const replay = await stack.writerApi.call('POST', '/v1/messages', T, alice, body(1));
    expect(replay.body).toEqual({ ...first.body, replay: true });
    await new Promise((r) => setTimeout(r, 2_000));
    for (const u of members) {
      const got = (await mailboxOf(u)).entries.map((e) => e.events[0]!.message.message_id);
      expect([u, got]).toEqual([u, ids]);
    }
  });

  it('answers 409 for a conflicting resend and 403 for a non-member (nothing written)', async () => {
    const conflict = await stack.writerApi.call('POST', '/v1/messages', T, alice, body(1, 'other text'));
    expect([conflict.status, conflict.body.code]).toEqual([409, 'CONFLICT']);
    const forbidden = await stack.writerApi.call('POST', '/v1/messages', T, outsider, body(99));
    expect([forbidden.status, forbidden.body.code]).toEqual([403, 'FORBIDDEN']);
    const history = await stack.writerApi.call('GET', `/v1/conversations/${CONV}/messages?max_items=10`, T, bob);
    expect(history.body.items).toHaveLength(2);
  });

  it('expires an old cursor after truncate (410 CURSOR_EXPIRED)', async () => {
    const page = await mailboxOf(bob);
    const start = (await stack.mailboxApi.call('GET', `/v1/mailboxes/${bob}/entries?limit=1`, T, bob)).body;
    const tr = await stack.mailboxApi.call('POST', `/v1/mailboxes/${bob}/truncate`, T, bob, { before: page.entries[1]!.seq });
    expect(tr.status).toBe(200);
    const old = await stack.mailboxApi.call('GET', `/v1/mailboxes/${bob}/entries?after=${BigInt(start.next_after) - 1n}`, T, bob);
    expect([old.status, old.body.code]).toEqual([410, 'CURSOR_EXPIRED']);
  });

  it('continues seqs after a writer restart', async () => {
    const exit = await stack.writer!.stop('SIGTERM');
    expect(exit.code).toBe(0);
    await stack.startWriter();
    const next = await stack.writerApi.call('POST', '/v1/messages', T, alice, body(3));
    expect([next.status, next.body.seq]).toEqual([200, '3']);
    const replay = await stack.writerApi.call('POST', '/v1/messages', T, alice, body(1));
    expect([replay.status, replay.body.seq, replay.body.replay]).toEqual([200, '1', true]);
  });

  it('runs two writers concurrently with distinct writer ids: no seq reused, ids unique', async () => {
    const second = await stack.extraWriter();
    try {
      type Ready = { checks: { 'writer-lease': { detail: { writerId: number } } } };
      const ready = await Promise.all([stack.writerApi, second.api].map(async (api) => (await (await fetch(`${api.base}/readyz`)).json()) as Ready));
      expect(ready[0]!.checks['writer-lease'].detail.writerId).not.toBe(ready[1]!.checks['writer-lease'].detail.writerId);
      const sends = await Promise.all(
        Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? stack.writerApi : second.api).call('POST', '/v1/messages', T, members[i % members.length]!, body(100 + i))),
      );
      expect(sends.map((s) => s.status)).toEqual(Array(16).fill(200));
      expect(new Set(sends.map((s) => s.body.seq)).size).toBe(16);
      expect(new Set(sends.map((s) => s.body.message_id)).size).toBe(16);
    } finally {
      await second.process.stop('SIGTERM');
    }
  });

  it('long-polls: a waiting sync returns as soon as a new message is applied', async () => {
    // Everything sent so far (2 + 1 + 16 messages) is in; the wait below can only be ended by the next one.
    await eventually('carol has every earlier message', async () => (await mailboxOf(carol)).entries.length === 19);
    const cursor = (await mailboxOf(carol)).next_after;
    const started = Date.now();
    const waiting = stack.mailboxApi.call('GET', `/v1/mailboxes/${carol}/entries?after=${cursor}&wait_ms=20000`, T, carol);
    await new Promise((r) => setTimeout(r, 300));
    const sent = await stack.writerApi.call('POST', '/v1/messages', T, alice, body(50));
    expect(sent.status).toBe(200);
    const r = await waiting;
    expect(r.status).toBe(200);
    expect(r.body.entries.map((e: { events: { message: { message_id: string } }[] }) => e.events[0]!.message.message_id)).toEqual([sent.body.message_id]);
    expect(Date.now() - started).toBeLessThan(10_000);
    const above = await stack.mailboxApi.call('GET', `/v1/mailboxes/${carol}/entries?wait_ms=30001`, T, carol);
    expect([above.status, above.body.code]).toEqual([400, 'INVALID_INPUT']);
  });

  it('exits 0 on SIGTERM', async () => {
    expect((await stack.mailbox!.stop('SIGTERM')).code).toBe(0);
    await stack.startMailbox();
  });
});
