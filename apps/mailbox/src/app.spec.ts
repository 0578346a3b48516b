import { composeMailboxSeq, encodeMessageRecord, epochStartSeq, shardOf } from '@qim/store-core';
import { specMessage } from '@qim/mailbox-runtime/testing';
import { EPOCH, SHARDS, TOKEN, headers, hex, mailboxTestApp } from './testing/mailbox-test-app';
import type { MailboxTestApp } from './testing/mailbox-test-app';
import { syncAnswer } from './wire/mailbox-wire';

/** The sync page is serialized without a per-request check (typedOkSerializer): it must pass its schema as is. */
const expectSchemaPage = (page: unknown) => expect(syncAnswer.parse(page)).toEqual(page);

const T = hex(0xa1);
const users = Array.from({ length: 8 }, (_, i) => hex(i + 1));

describe('mailbox app', () => {
  let t: MailboxTestApp;
  beforeEach(async () => {
    t = await mailboxTestApp();
  });
  afterEach(() => t.app.close());

  const sync = (user: string, query = '', as = user) => t.app.inject({ url: `/v1/mailboxes/${user}/entries${query}`, headers: headers(T, as as never) });

  it('spreads the test users over both shards', () => {
    expect(new Set(users.map((u) => shardOf(T, u, SHARDS))).size).toBe(2);
  });

  describe('auth', () => {
    it.each([
      ['GET', `/v1/mailboxes/${hex(1)}/entries`],
      ['POST', `/v1/mailboxes/${hex(1)}/truncate`],
      ['GET', '/v1/shards/0/status'],
    ] as const)('%s %s needs the bearer token', async (method, url) => {
      for (const authorization of [undefined, 'Bearer not-the-token-000000', `Basic ${TOKEN}`]) {
        const r = await t.app.inject({
          method,
          url,
          headers: { ...(authorization ? { authorization } : {}), 'x-qim-tenant': T, 'x-qim-user': hex(1) },
          payload: method === 'POST' ? { before: '1' } : undefined,
        });
        expect(r.statusCode).toBe(401);
        expect(r.json().code).toBe('UNAUTHORIZED');
      }
    });

    it('lets a user read only their own mailbox', async () => {
      const r = await sync(hex(1), '', hex(2));
      expect([r.statusCode, r.json().code]).toEqual([403, 'FORBIDDEN']);
      const tr = await t.app.inject({ method: 'POST', url: `/v1/mailboxes/${hex(1)}/truncate`, headers: headers(T, hex(2)), payload: { before: '1' } });
      expect(tr.statusCode).toBe(403);
    });

    it('serves ops routes without a token', async () => {
      expect((await t.app.inject({ url: '/healthz' })).statusCode).toBe(200);
      expect((await t.app.inject({ url: '/readyz' })).json().status).toBe('ready');
      expect((await t.app.inject({ url: '/metrics' })).body).toContain('qim_shard_frontier');
      expect((await t.app.inject({ url: '/openapi.json' })).json().paths).toHaveProperty(['/v1/mailboxes/{user}/entries']);
    });

    it("exposes its own metrics and the ones both services have in /metrics, none of the writer's", async () => {
      const names = [...(await t.app.inject({ url: '/metrics' })).body.matchAll(/^# TYPE (qim_\w+) /gm)].map((m) => m[1]);
      for (const own of ['qim_shard_frontier', 'qim_dispatch_lag_seconds', 'qim_router_dispatches_total', 'qim_sync_scans_total', 'qim_poison_records_total'])
        expect(names).toContain(own);
      for (const shared of ['qim_http_request_duration_seconds', 'qim_kafka_requests_total', 'qim_read_budget_refused_total', 'qim_read_budget_shrunk_total'])
        expect(names).toContain(shared);
      for (const writer of ['qim_commits_total', 'qim_recovery_actions_total', 'qim_commit_step_seconds', 'qim_writer_lease_held', 'qim_admission_closed'])
        expect(names).not.toContain(writer);
    });
  });

  describe('sync', () => {
    it('gives every recipient exactly one entry per message, across shards, up to the shard frontier', async () => {
      const now = t.clock.nowMs();
      await t.deliver(specMessage(T, users[0]!, 1n, now), users);
      await t.deliver(specMessage(T, users[1]!, 2n, now), users);
      for (const u of users) {
        const r = await sync(u);
        expect(r.statusCode).toBe(200);
        const page = r.json();
        expectSchemaPage(page);
        expect(page.entries).toHaveLength(2);
        expect(page.entries.map((e: { events: { message: { seq: string } }[] }) => e.events[0]!.message.seq)).toEqual(['1', '2']);
        expect(page.has_more).toBe(false);
        expect(page.next_after).toBe(page.up_to);
        expect(Buffer.from(page.entries[0].events[0].message.body, 'base64').toString()).toBe('m1');
        // Each message reached both shards at offsets 0 and 1: every frontier is 1.
        expect(page.up_to).toBe(composeMailboxSeq(EPOCH, 1n).toString());
        const after = await sync(u, `?after=${page.next_after}`);
        expect(after.json().entries).toEqual([]);
      }
    });

    it('is unchanged by a redelivered dispatch (still one entry each)', async () => {
      const rec = specMessage(T, users[0]!, 1n, t.clock.nowMs());
      await t.deliver(rec, users);
      await t.deliver(rec, users);
      for (const u of users) {
        const seqs = (await sync(u)).json().entries.map((e: { events: { message: { message_id: string } }[] }) => e.events[0]!.message.message_id);
        expect(new Set(seqs).size).toBe(1);
      }
    });

    it('pages with limit and continues from next_after', async () => {
      for (let s = 1n; s <= 3n; s++) await t.deliver(specMessage(T, users[0]!, s, t.clock.nowMs()), [users[0]!]);
      const p1 = (await sync(users[0]!, '?limit=2')).json();
      expect(p1.entries).toHaveLength(2);
      expect(p1.has_more).toBe(true);
      const p2 = (await sync(users[0]!, `?limit=2&after=${p1.next_after}`)).json();
      expect(p2.entries).toHaveLength(1);
    });

    it('cuts a page at max_bytes (the first entry always whole) and continues from next_after', async () => {
      const records = [1n, 2n, 3n].map((s) => specMessage(T, users[0]!, s, t.clock.nowMs(), `${'x'.repeat(400)}${s}`));
      for (const r of records) await t.deliver(r, [users[0]!]);
      const size = encodeMessageRecord(records[0]!).length;
      const one = (await sync(users[0]!, '?max_bytes=1')).json();
      expect([one.entries.length, one.has_more]).toEqual([1, true]);
      expect(one.next_after).toBe(one.entries[0].seq);
      const two = (await sync(users[0]!, `?max_bytes=${2 * size}&after=${one.next_after}`)).json();
      expect(two.entries.map((e: { events: { message: { seq: string } }[] }) => e.events[0]!.message.seq)).toEqual(['2', '3']);
      expect([two.has_more, two.next_after]).toEqual([false, two.up_to]);
      const cut = (await sync(users[0]!, `?max_bytes=${3 * size - 1}`)).json();
      expect([cut.entries.length, cut.has_more]).toEqual([2, true]);
    });

    it('sends each message body once: decoded in message, no raw payload beside it', async () => {
      await t.deliver(specMessage(T, users[0]!, 1n, t.clock.nowMs(), 'only once'), [users[0]!]);
      const r = await sync(users[0]!);
      expectSchemaPage(r.json());
      const ev = r.json().entries[0].events[0];
      expect(ev.payload).toBeNull();
      expect(ev.message).toMatchObject({ seq: '1', sender_id: users[0], client_message_id: hex(0xd001), retention: { kind: 'default' } });
      expect(r.body.split(Buffer.from('only once').toString('base64'))).toHaveLength(2);
    });

    it('answers 410 CURSOR_EXPIRED (resync) for a cursor below the trim', async () => {
      await t.deliver(specMessage(T, users[0]!, 1n, t.clock.nowMs()), [users[0]!]);
      await t.deliver(specMessage(T, users[0]!, 2n, t.clock.nowMs()), [users[0]!]);
      const page = (await sync(users[0]!)).json();
      const trimTo = page.entries[1].seq;
      const tr = await t.app.inject({ method: 'POST', url: `/v1/mailboxes/${users[0]}/truncate`, headers: headers(T, users[0]!), payload: { before: trimTo } });
      expect(tr.statusCode).toBe(200);
      const old = await sync(users[0]!, `?after=${epochStartSeq(EPOCH)}`);
      expect(old.statusCode).toBe(410);
      expect(old.json()).toMatchObject({ code: 'CURSOR_EXPIRED', resync: true });
    });

    it('lets a device that was told to resync start again: a sync without a cursor begins at the retained boundary', async () => {
      for (const seq of [1n, 2n, 3n]) await t.deliver(specMessage(T, users[0]!, seq, t.clock.nowMs()), [users[0]!]);
      const all = (await sync(users[0]!)).json();
      const trimTo = all.entries[1].seq;
      await t.app.inject({ method: 'POST', url: `/v1/mailboxes/${users[0]}/truncate`, headers: headers(T, users[0]!), payload: { before: trimTo } });
      const fresh = await sync(users[0]!);
      expect(fresh.statusCode).toBe(200);
      expect(fresh.json().entries.map((e: { seq: string }) => e.seq)).toEqual([all.entries[2].seq]);
    });

    it('answers 410 EPOCH_MISMATCH for a cursor of another epoch', async () => {
      const r = await sync(users[0]!, `?after=${composeMailboxSeq(EPOCH + 1, 5n)}`);
      expect(r.statusCode).toBe(410);
      expect(r.json()).toMatchObject({ code: 'EPOCH_MISMATCH', resync: true });
    });

    it('validates the query and body', async () => {
      for (const q of ['?after=-1', '?after=x', '?limit=0', '?limit=51', '?other=1', '?max_bytes=0', '?wait_ms=-1', '?wait_ms=x']) {
        const r = await sync(users[0]!, q);
        expect([q, r.statusCode, r.json().code]).toEqual([q, 400, 'INVALID_INPUT']);
      }
      expect((await sync('nothex')).statusCode).toBe(400);
      const tr = await t.app.inject({ method: 'POST', url: `/v1/mailboxes/${users[0]}/truncate`, headers: headers(T, users[0]!), payload: { before: 12 } });
      expect(tr.statusCode).toBe(400);
    });
  });

  it('answers shard status (frontier, the seq it makes visible, stall) and validates the shard', async () => {
    const status = async (s: number | string) => t.app.inject({ url: `/v1/shards/${s}/status`, headers: headers(T, users[0]!) });
    expect((await status(1)).json()).toMatchObject({
      shard: 1,
      epoch: EPOCH,
      assigned_here: true,
      checked: true,
      frontier: null,
      visible_up_to: epochStartSeq(EPOCH).toString(),
      stalled: null,
    });
    await t.deliver(specMessage(T, users[0]!, 1n, t.clock.nowMs()), users);
    expect((await status(1)).json()).toMatchObject({ frontier: '0', visible_up_to: composeMailboxSeq(EPOCH, 0n).toString(), pages_applied: 1 });
    expect((await status('x')).statusCode).toBe(400);
    expect((await status(SHARDS)).statusCode).toBe(400);
  });

  it('answers 503 on /readyz with details when a check fails', async () => {
    const u = await mailboxTestApp({ readiness: [{ name: 'lanes', check: async () => ({ ok: false, detail: { shard: 0 } }) }] });
    const r = await u.app.inject({ url: '/readyz' });
    expect([r.statusCode, r.json().status]).toEqual([503, 'not_ready']);
    await u.app.close();
  });
});
