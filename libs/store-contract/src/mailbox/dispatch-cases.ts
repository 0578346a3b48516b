import { DispatchConflictError, LANE_COUNT, composeMailboxSeq } from '@qim/store-core';
import { expectStoreError } from '../support/expect-error';
import { randomId } from '../support/ids';
import { oneLaneDispatch } from './dispatch-fixtures';
import { manifestFor } from './mailbox-fixtures';
import type { MailboxContext } from './mailbox-fixtures';

/** `beginDispatch`: first sight, duplicate log, conflicts. */
export function dispatchCases(ctx: () => MailboxContext): void {
  describe('beginDispatch', () => {
    it('first sight fixes the receipt (canonical offset and seq) and a fresh progress', async () => {
      const c = ctx();
      const store = await c.open();
      const d = oneLaneDispatch(c);
      const t0 = c.time.now();
      const receipt = await store.beginDispatch(d.dispatchId, 100n, d.manifest, d.digest);
      const t1 = c.time.now();
      expect(receipt.dispatchId).toBe(d.dispatchId);
      expect(receipt.canonicalOffset).toBe(100n);
      expect(receipt.mailboxSeq).toBe(composeMailboxSeq(c.shardEpoch.epoch, 100n));
      expect(Buffer.from(receipt.digest).equals(d.digest)).toBe(true);
      const p = await store.dispatchProgress(d.dispatchId);
      expect(p).not.toBeNull();
      expect(p!.receipt).toEqual(receipt);
      expect(p!.manifest).toEqual(d.manifest);
      expect(p!.maxObservedOffset).toBe(100n);
      expect(p!.lastSeenAt >= t0 && p!.lastSeenAt <= t1).toBe(true);
      expect(p!.completedAt).toBeNull();
      expect(p!.completedChunks).toEqual(Array.from({ length: LANE_COUNT }, () => []));
      expect(p!.gcDeadline).toBeNull();
      expect(p!.gcPhase).toBeNull();
    });

    it('a duplicate at a later offset reuses the receipt, raises maxObservedOffset and refreshes lastSeenAt; an earlier one never lowers it', async () => {
      const c = ctx();
      const store = await c.open();
      const d = oneLaneDispatch(c);
      const first = await store.beginDispatch(d.dispatchId, 100n, d.manifest, d.digest);
      const seen0 = (await store.dispatchProgress(d.dispatchId))!.lastSeenAt;
      await c.time.pass(25n);
      expect(await store.beginDispatch(d.dispatchId, 104n, d.manifest, d.digest)).toEqual(first);
      const p1 = (await store.dispatchProgress(d.dispatchId))!;
      expect(p1.maxObservedOffset).toBe(104n);
      expect(p1.lastSeenAt > seen0).toBe(true);
      await c.time.pass(25n);
      expect(await store.beginDispatch(d.dispatchId, 102n, d.manifest, d.digest)).toEqual(first);
      expect(await store.beginDispatch(d.dispatchId, 100n, d.manifest, d.digest)).toEqual(first);
      const p2 = (await store.dispatchProgress(d.dispatchId))!;
      expect(p2.maxObservedOffset).toBe(104n);
      expect(p2.lastSeenAt > p1.lastSeenAt).toBe(true);
      expect(p2.receipt).toEqual(first);
    });

    it('the same dispatch id with another manifest/digest → DispatchConflict; progress unchanged', async () => {
      const c = ctx();
      const store = await c.open();
      const d = oneLaneDispatch(c);
      await store.beginDispatch(d.dispatchId, 100n, d.manifest, d.digest);
      const before = await store.dispatchProgress(d.dispatchId);
      const other = manifestFor(c.tenantId, [...d.users, randomId()], 2, d.dispatchId);
      await expectStoreError(store.beginDispatch(d.dispatchId, 101n, other.manifest, other.digest), DispatchConflictError);
      await expectStoreError(store.beginDispatch(d.dispatchId, 100n, other.manifest, other.digest), DispatchConflictError);
      expect(await store.dispatchProgress(d.dispatchId)).toEqual(before);
    });

    it('another dispatch claiming an offset already recorded → DispatchConflict; it gets no progress', async () => {
      const c = ctx();
      const store = await c.open();
      const d = oneLaneDispatch(c);
      const e = oneLaneDispatch(c);
      await store.beginDispatch(d.dispatchId, 100n, d.manifest, d.digest);
      await store.beginDispatch(d.dispatchId, 103n, d.manifest, d.digest);
      await expectStoreError(store.beginDispatch(e.dispatchId, 100n, e.manifest, e.digest), DispatchConflictError);
      await expectStoreError(store.beginDispatch(e.dispatchId, 103n, e.manifest, e.digest), DispatchConflictError);
      expect(await store.dispatchProgress(e.dispatchId)).toBeNull();
      const r = await store.beginDispatch(e.dispatchId, 101n, e.manifest, e.digest);
      expect(r.canonicalOffset).toBe(101n);
      expect((await store.dispatchProgress(d.dispatchId))!.maxObservedOffset).toBe(103n);
    });

    it('an unknown dispatch has no progress and no completed chunk', async () => {
      const c = ctx();
      const store = await c.open();
      expect(await store.dispatchProgress(randomId())).toBeNull();
      expect(await store.chunkCompleted(randomId(), 3, 0)).toBe(false);
    });
  });
}
