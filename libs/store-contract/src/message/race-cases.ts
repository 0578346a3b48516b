import { ConflictError, recordFromIntent } from '@qim/store-core';
import { expectStoreError } from '../support/expect-error';
import { randomId } from '../support/ids';
import { allowAll, makeRequest, makeReserve, recordMessage } from './message-fixtures';
import type { MessageContext } from './message-fixtures';

/** Concurrent reserves: one winner per key, distinct seqs per conversation, holes legal, no reuse. */
export function raceCases(ctx: () => MessageContext): void {
  describe('concurrent reserves', () => {
    it('many concurrent reserves on different keys of one conversation get pairwise distinct seqs', async () => {
      const { store, tenantId, time } = ctx();
      const conv = randomId();
      const results = await Promise.all(Array.from({ length: 24 }, () => store.reserve(makeReserve(makeRequest(tenantId, conv), time.now()))));
      const seqs = results.map((r) => r.snapshot.intent.seq);
      expect(results.every((r) => r.created)).toBe(true);
      expect(new Set(seqs).size).toBe(seqs.length);
      expect(seqs.every((s) => s >= 1n)).toBe(true);
    });

    it('concurrent reserves of one request: exactly one creates, all return its intent', async () => {
      const { store, tenantId, time } = ctx();
      const req = makeRequest(tenantId, randomId());
      const results = await Promise.all(Array.from({ length: 6 }, (_, k) => store.reserve(makeReserve(req, time.now() + BigInt(k)))));
      expect(results.filter((r) => r.created)).toHaveLength(1);
      const winner = results.find((r) => r.created)!.snapshot;
      for (const r of results) expect(r.snapshot).toEqual(winner);
      expect(await store.loadCommit(winner.intent.key)).toEqual(winner);
    });

    it('concurrent reserves of one key with different content: one wins, the other gets Conflict', async () => {
      const { store, tenantId, time } = ctx();
      const req = makeRequest(tenantId, randomId());
      const other = { ...req, body: Buffer.from('a different body') };
      const settled = await Promise.allSettled([store.reserve(makeReserve(req, time.now())), store.reserve(makeReserve(other, time.now()))]);
      const ok = settled.filter((s) => s.status === 'fulfilled');
      const failed = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
      expect(ok).toHaveLength(1);
      expect(failed).toHaveLength(1);
      await expectStoreError(Promise.reject(failed[0]!.reason), ConflictError);
    });

    it('after a lost race a seq is never reused: later seqs are higher, every commit has its own seq, holes are legal in history', async () => {
      const { store, tenantId, time } = ctx();
      const conv = randomId();
      const req = makeRequest(tenantId, conv);
      const raced = await Promise.all(Array.from({ length: 4 }, () => store.reserve(makeReserve(req, time.now()))));
      const winner = raced[0]!.snapshot.intent;
      const rest = await Promise.all(Array.from({ length: 8 }, () => store.reserve(makeReserve(makeRequest(tenantId, conv), time.now()))));
      const later = await store.reserve(makeReserve(makeRequest(tenantId, conv), time.now()));
      const all = [winner, ...rest.map((r) => r.snapshot.intent), later.snapshot.intent];
      const seqs = all.map((i) => i.seq);
      expect(new Set(seqs).size).toBe(seqs.length);
      expect(later.snapshot.intent.seq > seqs.slice(0, -1).reduce((a, b) => (a > b ? a : b))).toBe(true);

      for (const i of [winner, later.snapshot.intent]) await store.putRecord(i, recordFromIntent(i));
      const viewer = { tenantId, userId: req.senderId };
      const page = await store.historyPage(allowAll, viewer, conv, { direction: 'newer', anchor: null, maxItems: 100, maxBytes: 1 << 20 });
      expect(page.items.map((it) => it.record.seq)).toEqual([winner.seq, later.snapshot.intent.seq]);
    });

    it('a replay racing with a new key still leaves every created commit its own seq', async () => {
      const { store, tenantId, time } = ctx();
      const conv = randomId();
      const first = await recordMessage(store, makeReserve(makeRequest(tenantId, conv), time.now()));
      const reqs = Array.from({ length: 5 }, () => makeRequest(tenantId, conv));
      const replays = reqs.map(() => store.reserve(makeReserve(first.intent.request, time.now())));
      const fresh = reqs.map((r) => store.reserve(makeReserve(r, time.now())));
      const out = await Promise.all([...replays, ...fresh]);
      for (const r of out.slice(0, 5)) expect(r.snapshot.intent.seq).toBe(first.intent.seq);
      const freshSeqs = out.slice(5).map((r) => r.snapshot.intent.seq);
      expect(new Set([first.intent.seq, ...freshSeqs]).size).toBe(6);
    });
  });
}
