import { COMMIT_AUX_TTL_MS, recordFromIntent } from '@qim/store-core';
import type { CommitSnapshot } from '@qim/store-core';
import { randomId } from '../support/ids';
import { TIMED_CASE_TIMEOUT_MS } from '../support/time-control';
import { allowAll, commitFully, makeRequest, makeReserve, publicationAt } from './message-fixtures';
import type { MessageContext } from './message-fixtures';

/** Longest aux TTL a real-time backend may declare for the contract run. */
const MAX_REAL_AUX_TTL_MS = 3_000n;

/** `scanRecoverableCommits` and the expiry of auxiliary commit facts. */
export function recoveryCases(ctx: () => MessageContext): void {
  describe('recovery scan', () => {
    it('returns only non-terminal intents older than the cutoff, oldest first, within the cap, without duplicates', async () => {
      const { store, tenantId, time } = ctx();
      const conv = randomId();
      const base = time.now();
      const at = (secondsAgo: number): bigint => base - BigInt(secondsAgo) * 1000n;
      const reserveAt = async (secondsAgo: number): Promise<CommitSnapshot> =>
        (await store.reserve(makeReserve(makeRequest(tenantId, conv), at(secondsAgo)))).snapshot;

      const a = await reserveAt(40);
      const b = await reserveAt(30);
      const recorded = await reserveAt(25);
      await store.putRecord(recorded.intent, recordFromIntent(recorded.intent));
      const outboxed = await reserveAt(22);
      await store.putRecord(outboxed.intent, recordFromIntent(outboxed.intent));
      await store.markOutboxPublished(outboxed.intent.key, outboxed.intent.messageId, publicationAt(9n));
      await commitFully(store, makeReserve(makeRequest(tenantId, conv), at(35)));
      const atCutoff = await reserveAt(10);
      await reserveAt(1);
      // a raced key leaves two recovery index rows (one per candidate created_at) for one commit
      const racedReq = makeRequest(tenantId, conv);
      const raced = await Promise.all([store.reserve(makeReserve(racedReq, at(21))), store.reserve(makeReserve(racedReq, at(20)))]);
      const racedIntent = raced[0]!.snapshot.intent;
      const cutoff = atCutoff.intent.createdAt;

      const found = await store.scanRecoverableCommits(cutoff, 100);
      const expected = [
        { ...a, state: 'RESERVED' },
        { ...b, state: 'RESERVED' },
        { ...recorded, state: 'RECORDED' },
        { ...outboxed, state: 'OUTBOXED' },
        { intent: racedIntent, state: 'RESERVED' },
      ]
        .map((s) => ({ key: s.intent.key, at: s.intent.createdAt, state: s.state }))
        .sort((x, y) => (x.at < y.at ? -1 : x.at > y.at ? 1 : 0));
      expect(found.map((s) => ({ key: s.intent.key, at: s.intent.createdAt, state: s.state }))).toEqual(expected);
      expect(found.find((s) => s.intent.messageId === outboxed.intent.messageId)?.intent.publication).toEqual(publicationAt(9n));
      expect(found.find((s) => s.intent.messageId === a.intent.messageId)).toEqual(a);

      const capped = await store.scanRecoverableCommits(cutoff, 2);
      expect(capped.map((s) => s.intent.key)).toEqual(expected.slice(0, 2).map((e) => e.key));
      expect(await store.scanRecoverableCommits(at(50), 100)).toEqual([]);
    });

    it('a commit that reaches COMMITTED leaves the scan', async () => {
      const { store, tenantId, time } = ctx();
      const input = makeReserve(makeRequest(tenantId, randomId()), time.now() - 60_000n);
      const { snapshot } = await store.reserve(input);
      expect((await store.scanRecoverableCommits(time.now(), 10)).map((s) => s.intent.key)).toEqual([snapshot.intent.key]);
      await commitFully(store, input);
      expect(await store.scanRecoverableCommits(time.now(), 10)).toEqual([]);
    });
  });

  describe('auxiliary commit facts', () => {
    it(
      'expire after the aux TTL (2 h in production): commit and recovery row vanish, the sequence and history stay',
      async () => {
        const { store, tenantId, time, harness } = ctx();
        if (time.manual) expect(harness.commitAuxTtlMs).toBe(COMMIT_AUX_TTL_MS);
        else expect(harness.commitAuxTtlMs <= MAX_REAL_AUX_TTL_MS).toBe(true);
        const ttl = harness.commitAuxTtlMs;
        const conv = randomId();
        const start = time.now();
        const pendingInput = makeReserve(makeRequest(tenantId, conv), start - 1000n);
        const pending = (await store.reserve(pendingInput)).snapshot;
        const done = await commitFully(store, makeReserve(makeRequest(tenantId, conv), start - 1000n));

        if (time.manual) {
          await time.reach(start + ttl - 1n);
          expect(await store.loadCommit(pending.intent.key)).toEqual(pending);
          expect((await store.scanRecoverableCommits(time.now(), 10)).map((s) => s.intent.key)).toEqual([pending.intent.key]);
        }
        await time.reach(start + ttl);
        expect(await store.loadCommit(pending.intent.key)).toBeNull();
        expect(await store.loadCommit(done.intent.key)).toBeNull();
        expect(await store.scanRecoverableCommits(time.now(), 10)).toEqual([]);
        // Counted per commit; server-TTL backends have nothing left to reclaim.
        const owned = store.capabilities.injectableClock;
        expect(await store.gcCommittedAuxiliary(time.now(), 1)).toEqual(
          owned ? { examined: 1, reclaimed: 1, more: true } : { examined: 0, reclaimed: 0, more: false },
        );
        expect(await store.gcCommittedAuxiliary(time.now(), 100)).toEqual(
          owned ? { examined: 1, reclaimed: 1, more: false } : { examined: 0, reclaimed: 0, more: false },
        );
        expect(await store.gcCommittedAuxiliary(time.now(), 100)).toEqual({ examined: 0, reclaimed: 0, more: false });
        expect(await store.loadCommit(pending.intent.key)).toBeNull();

        const viewer = { tenantId, userId: randomId() };
        const page = await store.historyPage(allowAll, viewer, conv, { direction: 'newer', anchor: null, maxItems: 10, maxBytes: 1 << 20 });
        expect(page.items.map((i) => i.record.seq)).toEqual([done.intent.seq]);

        const again = await store.reserve(pendingInput);
        expect(again.created).toBe(true);
        expect(again.snapshot.intent.seq > done.intent.seq).toBe(true);
      },
      TIMED_CASE_TIMEOUT_MS,
    );
  });
}
