import { composeMailboxSeq, epochStartSeq, shardOf } from '@qim/store-core';
import { EPOCH, SHARDS, TOKEN, headers, hex, mailboxTestApp, messageRecord } from './testing/mailbox-test-app';
import type { MailboxTestApp } from './testing/mailbox-test-app';

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
        const r = await t.app.inject({ method, url, headers: { ...(authorization ? { authorization } : {}), 'x-qim-tenant': T, 'x-qim-user': hex(1) }, payload: method === 'POST' ? { before: '1' } : undefined });
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
      expect((await t.app.inject({ url: '/metrics' })).body).toContain('qim_lane_watermark');
      expect((await t.app.inject({ url: '/openapi.json' })).json().paths).toHaveProperty(['/v1/mailboxes/{user}/entries']);
    });
  });

  describe('sync', () => {
    it('gives every recipient exactly one entry per message, across shards, only up to the watermark', async () => {
      const now = t.clock.nowMs();
      await t.deliver(messageRecord(T, 1n, users[0]!, now), users);
      await t.deliver(messageRecord(T, 2n, users[1]!, now), users);
      for (const u of users) {
        const r = await sync(u);
        expect(r.statusCode).toBe(200);
        const page = r.json();
        expect(page.entries).toHaveLength(2);
        expect(page.entries.map((e: { events: { message: { seq: string } }[] }) => e.events[0]!.message.seq)).toEqual(['1', '2']);
        expect(page.has_more).toBe(false);
        expect(page.next_after).toBe(page.up_to);
        expect(Buffer.from(page.entries[0].events[0].message.body, 'base64').toString()).toBe('m1');
        const after = await sync(u, `?after=${page.next_after}`);
        expect(after.json().entries).toEqual([]);
      }
    });

    it('is unchanged by a redelivered dispatch (still one entry each)', async () => {
      const rec = messageRecord(T, 1n, users[0]!, t.clock.nowMs());
      await t.deliver(rec, users);
      await t.deliver(rec, users);
      for (const u of users) {
        const seqs = (await sync(u)).json().entries.map((e: { events: { message: { message_id: string } }[] }) => e.events[0]!.message.message_id);
        expect(new Set(seqs).size).toBe(1);
      }
    });

    it('pages with limit and continues from next_after', async () => {
      for (let s = 1n; s <= 3n; s++) await t.deliver(messageRecord(T, s, users[0]!, t.clock.nowMs()), [users[0]!]);
      const p1 = (await sync(users[0]!, '?limit=2')).json();
      expect(p1.entries).toHaveLength(2);
      expect(p1.has_more).toBe(true);
      const p2 = (await sync(users[0]!, `?limit=2&after=${p1.next_after}`)).json();
      expect(p2.entries).toHaveLength(1);
    });

    it('answers 410 CURSOR_EXPIRED (resync) for a cursor below the trim', async () => {
      await t.deliver(messageRecord(T, 1n, users[0]!, t.clock.nowMs()), [users[0]!]);
      await t.deliver(messageRecord(T, 2n, users[0]!, t.clock.nowMs()), [users[0]!]);
      const page = (await sync(users[0]!)).json();
      const trimTo = page.entries[1].seq;
      const tr = await t.app.inject({ method: 'POST', url: `/v1/mailboxes/${users[0]}/truncate`, headers: headers(T, users[0]!), payload: { before: trimTo } });
      expect(tr.statusCode).toBe(200);
      const old = await sync(users[0]!, `?after=${epochStartSeq(EPOCH)}`);
      expect(old.statusCode).toBe(410);
      expect(old.json()).toMatchObject({ code: 'CURSOR_EXPIRED', resync: true });
    });

    it('answers 410 EPOCH_MISMATCH for a cursor of another epoch', async () => {
      const r = await sync(users[0]!, `?after=${composeMailboxSeq(EPOCH + 1, 5n)}`);
      expect(r.statusCode).toBe(410);
      expect(r.json()).toMatchObject({ code: 'EPOCH_MISMATCH', resync: true });
    });

    it('validates the query and body', async () => {
      for (const q of ['?after=-1', '?after=x', '?limit=0', '?limit=51', '?other=1']) {
        const r = await sync(users[0]!, q);
        expect([q, r.statusCode, r.json().code]).toEqual([q, 400, 'INVALID_INPUT']);
      }
      expect((await sync('nothex')).statusCode).toBe(400);
      const tr = await t.app.inject({ method: 'POST', url: `/v1/mailboxes/${users[0]}/truncate`, headers: headers(T, users[0]!), payload: { before: 12 } });
      expect(tr.statusCode).toBe(400);
    });
  });

  it('answers shard status and validates the shard', async () => {
    expect((await t.app.inject({ url: '/v1/shards/1/status', headers: headers(T, users[0]!) })).json()).toMatchObject({ shard: 1 });
    expect((await t.app.inject({ url: '/v1/shards/x/status', headers: headers(T, users[0]!) })).statusCode).toBe(400);
  });

  it('answers 503 on /readyz with details when a check fails', async () => {
    const u = await mailboxTestApp({ readiness: [{ name: 'lanes', check: async () => ({ ok: false, detail: { shard: 0 } }) }] });
    const r = await u.app.inject({ url: '/readyz' });
    expect([r.statusCode, r.json().status]).toEqual([503, 'not_ready']);
    await u.app.close();
  });
});
