import { execFileSync } from 'node:child_process';
import type { MailboxEntry } from '@qim/client';
import { QimConflictError, QimForbiddenError, QimInvalidInputError, QimResyncRequiredError } from '@qim/client';
import type { Id128 } from '@qim/store-core';
import { shardOf } from '@qim/store-core';
import { hex } from './support/e2e-env';
import { eventually } from './support/eventually';
import { serviceNode } from '@qim/service-stack';
import { ServiceStack } from './support/service-stack';

/**
 * Over real Redis + Kafka: the writer commits and publishes; the mailbox routes to 2 shards and
 * fans out; every recipient syncs exactly one entry per message. Calls go through @qim/client.
 */
describe('send → history → mailbox sync (redis backend, kafka)', () => {
  // The repeat hold (QIM_SYNC_REPEAT_HOLD_MS, 250 ms by default) runs from the answer that gave the
  // cursor: 2 s, so the repeat below reaches the mailbox within it however loaded the machine is.
  const REPEAT_HOLD_MS = 2_000;
  const stack = new ServiceStack({ QIM_SYNC_REPEAT_HOLD_MS: String(REPEAT_HOLD_MS) });
  const T = hex(0xe2e);
  const CONV = hex(0xc0ffee);
  const members = Array.from({ length: 6 }, (_, i) => hex(0x100 + i));
  const [alice, bob, carol] = members as [string, string, string];
  const outsider = hex(0xbad);
  const as = (user: string) => stack.client(T, user);
  /** Message `n` of this spec: a fixed client message id, so a repeat is a replay. */
  const send = (user: string, n: number, text = `hello ${n}`, writerUrl?: string) =>
    stack.client(T, user, writerUrl === undefined ? {} : { writerUrl }).send({ conversationId: CONV, body: text, clientMessageId: hex(0xf000 + n) });
  const messageIdsOf = (entries: readonly MailboxEntry[]) => entries.map((e) => e.events[0]!.message!.messageId);
  const orError = <T>(p: Promise<T>): Promise<T | unknown> => p.catch((e: unknown) => e);

  beforeAll(async () => {
    await stack.up();
    expect(await stack.client(T).addMembers(CONV, members)).toBe(members.length);
  });
  afterAll(() => stack.down());

  const mailboxOf = (user: string) => as(user).syncPage({ limit: 500 });

  async function waitForAll(messageIds: readonly string[]) {
    await eventually(`every member has ${messageIds.length} entries`, async () => {
      for (const u of members) if ((await mailboxOf(u)).entries.length < messageIds.length) return false;
      return true;
    });
  }

  it('spreads the members over both shards, each shard reporting its status', async () => {
    expect(new Set(members.map((u) => shardOf(T as Id128, u as Id128, 2))).size).toBe(2);
    for (const s of [0, 1]) {
      const st = await stack.client().shardStatus(s);
      expect(st).toMatchObject({ shard: s, epoch: 1, assignedHere: true, stall: null });
      expect(st.raw['kafka']).toMatchObject({ end: expect.any(String), lag: expect.any(String) });
    }
  });

  it('sends, pages history and delivers exactly one entry per recipient; a replay changes nothing', async () => {
    const first = await send(alice, 1);
    expect(first).toMatchObject({ conversationId: CONV, seq: 1n, replay: false });
    const second = await send(bob, 2);
    expect(second.seq).toBe(2n);

    const history = await as(bob).historyPage(CONV, { maxItems: 10 });
    expect(history.items.map((i) => i.seq)).toEqual([2n, 1n]);

    const ids = [first.messageId, second.messageId];
    await waitForAll(ids);
    const replay = await send(alice, 1);
    expect(replay).toEqual({ ...first, replay: true });
    await new Promise((r) => setTimeout(r, 2_000));
    for (const u of members) {
      const got = messageIdsOf((await mailboxOf(u)).entries);
      expect([u, got]).toEqual([u, ids]);
    }
  });

  it('answers 409 for a conflicting resend and 403 for a non-member (nothing written)', async () => {
    const conflict = await orError(send(alice, 1, 'other text'));
    expect(conflict).toBeInstanceOf(QimConflictError);
    expect(conflict).toMatchObject({ status: 409, code: 'CONFLICT' });
    const forbidden = await orError(send(outsider, 99));
    expect(forbidden).toBeInstanceOf(QimForbiddenError);
    expect(forbidden).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    const history = await as(bob).historyPage(CONV, { maxItems: 10 });
    expect(history.items).toHaveLength(2);
  });

  it('expires an old cursor after truncate (410 CURSOR_EXPIRED)', async () => {
    const page = await mailboxOf(bob);
    const start = await as(bob).syncPage({ limit: 1 });
    await as(bob).truncate(page.entries[1]!.seq);
    const old = await orError(as(bob).syncPage({ after: start.nextAfter - 1n }));
    expect(old).toBeInstanceOf(QimResyncRequiredError);
    expect(old).toMatchObject({ status: 410, code: 'CURSOR_EXPIRED' });
  });

  it('continues seqs after a writer restart', async () => {
    const exit = await stack.writer!.stop('SIGTERM');
    expect(exit.code).toBe(0);
    await stack.startWriter();
    const next = await send(alice, 3);
    expect(next.seq).toBe(3n);
    const replay = await send(alice, 1);
    expect([replay.seq, replay.replay]).toEqual([1n, true]);
  });

  it('runs two writers concurrently with distinct writer ids: no seq reused, ids unique', async () => {
    const second = await stack.extraWriter();
    try {
      const writerIdOf = async (writerUrl: string) => {
        const ready = await stack.client(undefined, undefined, { writerUrl }).readiness('writer');
        return (ready.checks['writer-lease']!.detail as { writerId: number }).writerId;
      };
      const ids = await Promise.all([stack.writerUrl, second.url].map(writerIdOf));
      expect(typeof ids[0]).toBe('number');
      expect(ids[0]).not.toBe(ids[1]);
      const sends = await Promise.all(
        Array.from({ length: 16 }, (_, i) => send(members[i % members.length]!, 100 + i, `hello ${100 + i}`, i % 2 === 0 ? undefined : second.url)),
      );
      expect(sends).toHaveLength(16);
      expect(new Set(sends.map((s) => s.seq)).size).toBe(16);
      expect(new Set(sends.map((s) => s.messageId)).size).toBe(16);
    } finally {
      await second.process.stop('SIGTERM');
    }
  });

  it('long-polls: a waiting sync returns as soon as a new message is applied', async () => {
    // Everything sent so far (2 + 1 + 16 messages) is in; the wait below can only be ended by the next one.
    await eventually('carol has every earlier message', async () => (await mailboxOf(carol)).entries.length === 19);
    const cursor = (await mailboxOf(carol)).nextAfter;
    const started = Date.now();
    const waiting = as(carol).syncPage({ after: cursor, waitMs: 20_000 });
    await new Promise((r) => setTimeout(r, 300));
    const sent = await send(alice, 50);
    const r = await waiting;
    expect(messageIdsOf(r.entries)).toEqual([sent.messageId]);
    expect(Date.now() - started).toBeLessThan(10_000);
    const above = await orError(as(carol).syncPage({ waitMs: 30_001 }));
    expect(above).toBeInstanceOf(QimInvalidInputError);
    expect(above).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
  });

  it('holds a sync that repeats the cursor of an answer and finds nothing new until QIM_SYNC_REPEAT_HOLD_MS after that answer', async () => {
    const heldSoFar = async (): Promise<number> => {
      const text = await (await fetch(`${stack.mailboxUrl}/metrics`)).text();
      const m = /^qim_sync_held_total\{[^}]*\} (\d+)$/m.exec(text);
      if (!m) throw new Error('the mailbox exposes no qim_sync_held_total');
      return Number(m[1]);
    };
    const before = await heldSoFar();
    // The hold ends REPEAT_HOLD_MS after the answer, which comes after this instant: a held repeat
    // answers at least REPEAT_HOLD_MS after it (measured from the repeat alone, a slow first answer
    // left the hold only 95 ms of 250).
    const started = Date.now();
    const cursor = (await mailboxOf(carol)).nextAfter;
    const repeat = await as(carol).syncPage({ after: cursor });
    const ms = Date.now() - started;
    expect([repeat.entries.length, repeat.nextAfter]).toEqual([0, cursor]);
    expect(ms).toBeGreaterThanOrEqual(REPEAT_HOLD_MS);
    expect(ms).toBeLessThan(REPEAT_HOLD_MS + 5_000);
    expect((await heldSoFar()) - before).toBe(1);
  });

  it(
    'counts every Kafka request by client and API in /metrics: ' + "the outbox's produces, the router's and shards' fetches and commits, the dispatch produces",
    async () => {
      const requests = async (url: string): Promise<Map<string, number>> => {
        const text = await (await fetch(`${url}/metrics`)).text();
        return new Map([...text.matchAll(/^qim_kafka_requests_total\{([^}]*)\} (\d+)$/gm)].map((m) => [m[1]!.replace(/,?service="[^"]*"/, ''), Number(m[2])]));
      };
      await send(alice, 40);
      const writer = await requests(stack.writerUrl);
      expect(writer.get('client="outbox",api="Produce"')).toBeGreaterThanOrEqual(1);
      await eventually('the mailbox routed, dispatched and committed', async () => {
        const mailbox = await requests(stack.mailboxUrl);
        return [
          'client="router",api="Fetch"',
          'client="shards",api="Fetch"',
          'client="dispatch",api="Produce"',
          'client="router",api="OffsetCommit"',
          'client="shards",api="OffsetCommit"',
        ].every((k) => (mailbox.get(k) ?? 0) >= 1);
      });
    },
  );

  it('runs both services on the service runtime (SERVICE_NODE: the pinned Node 24 under the test command)', async () => {
    const expected = execFileSync(serviceNode(), ['--version']).toString().trim();
    for (const url of [stack.writerUrl, stack.mailboxUrl]) {
      const text = await (await fetch(`${url}/metrics`)).text();
      expect(text.match(/^nodejs_version_info\{version="([^"]+)"/m)?.[1]).toBe(expected);
    }
  });

  it('exits 0 on SIGTERM', async () => {
    expect((await stack.mailbox!.stop('SIGTERM')).code).toBe(0);
    await stack.startMailbox();
  });
});
