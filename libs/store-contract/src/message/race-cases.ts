import { ConflictError, recordFromIntent } from '@qim/store-core';
import { expectStoreError } from '../support/expect-error';
import { randomId } from '../support/ids';
import { allowAll, makeRequest, makeReserve, recordMessage } from './message-fixtures';
import type { MessageContext } from './message-fixtures';

const ascending = (xs: readonly bigint[]): bigint[] => [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const seqsUpTo = (n: number): bigint[] => Array.from({ length: n }, (_, k) => BigInt(k + 1));

/** Concurrent reserves: one winner per key, one seq per commit (no hole without a crash), no reuse. */
export function raceCases(ctx: () => MessageContext): void {
  describe('concurrent reserves', () => {
    it('many concurrent reserves on different keys of one conversation get exactly the seqs 1 … n (no hole without a crash)', async () => {
      const { store, tenantId, time } = ctx();
      const conv = randomId();
      const results = await Promise.all(Array.from({ length: 24 }, () => store.reserve(makeReserve(makeRequest(tenantId, conv), time.now()))));
      expect(results.every((r) => r.created)).toBe(true);
      expect(ascending(results.map((r) => r.snapshot.intent.seq))).toEqual(seqsUpTo(24));
    });

    it('many concurrent identical reserves from two stores (two writer processes) spend one seq; every caller gets the same intent', async () => {
      const { store, harness, tenantId, time } = ctx();
      const peer = await harness.openStore();
      const conv = randomId();
      const req = makeRequest(tenantId, conv);
      const stores = [store, peer];
      const results = await Promise.all(
        Array.from({ length: 24 }, (_, k) => stores[k % 2]!.reserve(makeReserve(req, time.now() + BigInt(k), [req.senderId, randomId()]))),
      );
      expect(results.filter((r) => r.created)).toHaveLength(1);
      const winner = results.find((r) => r.created)!.snapshot;
      for (const r of results) expect(r.snapshot).toEqual(winner);
      expect(winner.intent.seq).toBe(1n);
      expect(await peer.loadCommit(winner.intent.key)).toEqual(winner);
      expect(await store.loadCommit(winner.intent.key)).toEqual(winner);

      expect((await peer.reserve(makeReserve(makeRequest(tenantId, conv), time.now()))).snapshot.intent.seq).toBe(2n);
      expect((await store.reserve(makeReserve(makeRequest(tenantId, conv), time.now()))).snapshot.intent.seq).toBe(3n);
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

    it('after a race a seq is never reused: every commit has its own seq, later seqs are higher, unrecorded seqs are holes in history', async () => {
      const { store, tenantId, time } = ctx();
      const conv = randomId();
      const req = makeRequest(tenantId, conv);
      const raced = await Promise.all(Array.from({ length: 4 }, () => store.reserve(makeReserve(req, time.now()))));
      const winner = raced[0]!.snapshot.intent;
      const rest = await Promise.all(Array.from({ length: 8 }, () => store.reserve(makeReserve(makeRequest(tenantId, conv), time.now()))));
      const later = await store.reserve(makeReserve(makeRequest(tenantId, conv), time.now()));
      const all = [winner, ...rest.map((r) => r.snapshot.intent), later.snapshot.intent];
      expect(ascending(all.map((i) => i.seq))).toEqual(seqsUpTo(10));
      expect(later.snapshot.intent.seq).toBe(10n);

      for (const i of [winner, later.snapshot.intent]) await store.putRecord(i, recordFromIntent(i));
      const viewer = { tenantId, userId: req.senderId };
      const page = await store.historyPage(allowAll, viewer, conv, { direction: 'newer', anchor: null, maxItems: 100, maxBytes: 1 << 20 });
      expect(page.items.map((it) => it.record.seq)).toEqual([winner.seq, later.snapshot.intent.seq]);
    });

    it('replays racing with new keys spend no seq: the new commits get exactly the next seqs', async () => {
      const { store, tenantId, time } = ctx();
      const conv = randomId();
      const first = await recordMessage(store, makeReserve(makeRequest(tenantId, conv), time.now()));
      const reqs = Array.from({ length: 5 }, () => makeRequest(tenantId, conv));
      const replays = reqs.map(() => store.reserve(makeReserve(first.intent.request, time.now())));
      const fresh = reqs.map((r) => store.reserve(makeReserve(r, time.now())));
      const out = await Promise.all([...replays, ...fresh]);
      for (const r of out.slice(0, 5)) expect(r.snapshot.intent.seq).toBe(first.intent.seq);
      expect(ascending([first.intent.seq, ...out.slice(5).map((r) => r.snapshot.intent.seq)])).toEqual(seqsUpTo(6));
    });
  });
}
