import { GcNotSafeError } from '@qim/store-core';
import type { DispatchReceipt, MailboxStore } from '@qim/store-core';
import { expectStoreError } from '../support/expect-error';
import { TIMED_CASE_TIMEOUT_MS } from '../support/time-control';
import { advanceAllFloors, advanceAllLanes, chunkEntries, completeDispatch, oneLaneDispatch } from './dispatch-fixtures';
import type { TestDispatch } from './dispatch-fixtures';
import { startOf, topOf } from './mailbox-fixtures';
import type { MailboxContext } from './mailbox-fixtures';

interface Finished {
  readonly store: MailboxStore;
  readonly d: TestDispatch;
  readonly receipt: DispatchReceipt;
  readonly lastSeenAt: bigint;
}

/** A complete dispatch at 700 with every lane's W and floor at 700: eligible once the cutoff passes lastSeenAt. */
async function finished(c: MailboxContext): Promise<Finished> {
  const store = await c.open();
  const d = oneLaneDispatch(c, 3);
  const receipt = await completeDispatch(c, store, d, 700n);
  await advanceAllLanes(store, null, 700n);
  await advanceAllFloors(store, null, 700n);
  const lastSeenAt = (await store.dispatchProgress(d.dispatchId))!.lastSeenAt;
  return { store, d, receipt, lastSeenAt };
}

/** Dispatch bookkeeping GC: eligibility gate, GC marker refusals, one fixed deadline, everything vanishes. */
export function gcCases(ctx: () => MailboxContext): void {
  describe('dispatch GC', () => {
    it('not before the dispatch is complete, W and floor of every lane pass maxObservedOffset, and lastSeenAt ≤ cutoff', async () => {
      const c = ctx();
      const store = await c.open();
      const d = oneLaneDispatch(c, 3);
      const receipt = await store.beginDispatch(d.dispatchId, 700n, d.manifest, d.digest);
      const farCutoff = c.time.now() + 1_000_000n;
      const noop = async (): Promise<void> => {
        expect((await store.gcCompletedDispatches(farCutoff, 10)).reclaimed).toBe(0);
        expect((await store.dispatchProgress(d.dispatchId))!.gcDeadline).toBeNull();
      };
      await store.markChunkCompleted(receipt, d.lane, 0);
      await noop();
      await store.markChunkCompleted(receipt, d.lane, 1);
      await noop();
      await store.beginDispatch(d.dispatchId, 701n, d.manifest, d.digest);
      await advanceAllLanes(store, null, 700n);
      await advanceAllFloors(store, null, 700n);
      await noop();
      await advanceAllLanes(store, 700n, 701n);
      await noop();
      await advanceAllFloors(store, 700n, 701n);
      const lastSeenAt = (await store.dispatchProgress(d.dispatchId))!.lastSeenAt;
      expect((await store.gcCompletedDispatches(lastSeenAt - 1n, 10)).reclaimed).toBe(0);
      expect((await store.dispatchProgress(d.dispatchId))!.gcDeadline).toBeNull();
      const report = await store.gcCompletedDispatches(lastSeenAt, 10);
      expect(report.reclaimed).toBe(1);
      expect(report.examined).toBeGreaterThanOrEqual(1);
      await expectStoreError(store.dispatchProgress(d.dispatchId), GcNotSafeError);
    });

    it('after the GC marker: beginDispatch, appendChunk, markChunkCompleted, advanceWatermark, dispatchProgress, chunkCompleted → GcNotSafe', async () => {
      const c = ctx();
      const { store, d, receipt, lastSeenAt } = await finished(c);
      expect((await store.gcCompletedDispatches(lastSeenAt, 10)).reclaimed).toBe(1);
      await expectStoreError(store.beginDispatch(d.dispatchId, 705n, d.manifest, d.digest), GcNotSafeError);
      await expectStoreError(store.beginDispatch(d.dispatchId, 700n, d.manifest, d.digest), GcNotSafeError);
      await expectStoreError(store.appendChunk(receipt, d.lane, 0, chunkEntries(c, d, receipt, 0)), GcNotSafeError);
      await expectStoreError(store.markChunkCompleted(receipt, d.lane, 0), GcNotSafeError);
      await expectStoreError(store.advanceWatermark(d.lane, 700n, 700n), GcNotSafeError);
      await expectStoreError(store.dispatchProgress(d.dispatchId), GcNotSafeError);
      await expectStoreError(store.chunkCompleted(d.dispatchId, d.lane, 0), GcNotSafeError);
    });

    it(
      'the deadline is fixed once and never renewed; every bookkeeping row vanishes at it, entries and watermarks stay',
      async () => {
        const c = ctx();
        const { store, d, lastSeenAt } = await finished(c);
        expect(await c.harness.countDispatchFacts(c.shardEpoch.shard, d.dispatchId)).toBeGreaterThan(64);
        expect((await store.gcCompletedDispatches(lastSeenAt, 10)).reclaimed).toBe(1);
        const deadline = c.time.now() + c.gcDelayMs;
        await c.time.pass(c.gcDelayMs / 2n);
        const retry = await store.gcCompletedDispatches(c.time.now(), 10);
        expect(retry.reclaimed).toBe(0);
        if (c.time.manual) {
          await c.time.reach(deadline - 1n);
          expect((await store.gcCompletedDispatches(c.time.now(), 10)).reclaimed).toBe(0);
          expect(await c.harness.countDispatchFacts(c.shardEpoch.shard, d.dispatchId)).toBeGreaterThan(0);
          await expectStoreError(store.dispatchProgress(d.dispatchId), GcNotSafeError);
        }
        await c.time.reach(deadline);
        expect(await c.harness.countDispatchFacts(c.shardEpoch.shard, d.dispatchId)).toBe(0);
        expect(await store.dispatchProgress(d.dispatchId)).toBeNull();
        expect(await store.chunkCompleted(d.dispatchId, d.lane, 0)).toBe(false);
        expect(await store.laneWatermark(d.lane)).toEqual({ lane: d.lane, w: 700n, floor: 700n });
        const page = await store.rangeScan(c.tenantId, d.users[0]!, startOf(store), topOf(store), 10);
        expect(page.entries).toHaveLength(1);
        const report = await store.gcCompletedDispatches(c.time.now(), 10);
        expect(report.reclaimed).toBe(0);
      },
      TIMED_CASE_TIMEOUT_MS,
    );

    it('at most `limit` dispatches per pass; `more` tells the rest is left', async () => {
      const c = ctx();
      const store = await c.open();
      const d1 = oneLaneDispatch(c, 1);
      const d2 = oneLaneDispatch(c, 1);
      await completeDispatch(c, store, d1, 800n);
      await completeDispatch(c, store, d2, 801n);
      await advanceAllLanes(store, null, 800n);
      await advanceAllLanes(store, 800n, 801n);
      await advanceAllFloors(store, null, 801n);
      const cutoff = c.time.now();
      const first = await store.gcCompletedDispatches(cutoff, 1);
      expect(first.reclaimed).toBe(1);
      expect(first.more).toBe(true);
      const second = await store.gcCompletedDispatches(cutoff, 1);
      expect(second.reclaimed).toBe(1);
      for (const d of [d1, d2]) await expectStoreError(store.dispatchProgress(d.dispatchId), GcNotSafeError);
    });
  });
}
