import { CorruptEntryError, WatermarkConflictError, WatermarkNotReadyError, WatermarkStalledError } from '@qim/store-core';
import { expectStoreError } from '../support/expect-error';
import { completeDispatch, emptyDispatch, oneLaneDispatch } from './dispatch-fixtures';
import type { MailboxContext } from './mailbox-fixtures';

/** Lane watermarks: exact CAS steps across recorded offsets, holes and incomplete chunks stall, floor ≤ W. */
export function watermarkCases(ctx: () => MailboxContext): void {
  describe('lane watermarks', () => {
    it('nothing proven: W and floor are null', async () => {
      const c = ctx();
      const store = await c.open();
      expect(await store.laneWatermark(5)).toEqual({ lane: 5, w: null, floor: null });
    });

    it('from null W moves to the lowest recorded offset only once the lane’s chunks there are complete; a repeat is idempotent', async () => {
      const c = ctx();
      const store = await c.open();
      const d = oneLaneDispatch(c, 3);
      const receipt = await store.beginDispatch(d.dispatchId, 200n, d.manifest, d.digest);
      const e = emptyDispatch(c);
      await store.beginDispatch(e.dispatchId, 201n, e.manifest, e.digest);
      await expectStoreError(store.advanceWatermark(d.lane, null, 201n), WatermarkStalledError);
      await expectStoreError(store.advanceWatermark(d.lane, null, 200n), WatermarkStalledError);
      await store.markChunkCompleted(receipt, d.lane, 0);
      await expectStoreError(store.advanceWatermark(d.lane, null, 200n), WatermarkStalledError);
      expect(await store.laneWatermark(d.lane)).toEqual({ lane: d.lane, w: null, floor: null });
      await store.markChunkCompleted(receipt, d.lane, 1);
      expect(await store.advanceWatermark(d.lane, null, 200n)).toEqual({ lane: d.lane, w: 200n, floor: null });
      expect(await store.advanceWatermark(d.lane, null, 200n)).toEqual({ lane: d.lane, w: 200n, floor: null });
      expect(await store.advanceWatermark(d.lane, 200n, 200n)).toEqual({ lane: d.lane, w: 200n, floor: null });
      expect(await store.advanceWatermark(d.lane, 200n, 201n)).toEqual({ lane: d.lane, w: 201n, floor: null });
      expect(await store.laneWatermark(d.lane)).toEqual({ lane: d.lane, w: 201n, floor: null });
      const other = (d.lane + 1) % 64;
      expect(await store.advanceWatermark(other, null, 200n)).toEqual({ lane: other, w: 200n, floor: null });
    });

    it('W ≠ expectedPrev → WatermarkConflict', async () => {
      const c = ctx();
      const store = await c.open();
      for (const o of [300n, 301n]) {
        const e = emptyDispatch(c);
        await store.beginDispatch(e.dispatchId, o, e.manifest, e.digest);
      }
      await store.advanceWatermark(9, null, 300n);
      await expectStoreError(store.advanceWatermark(9, null, 301n), WatermarkConflictError);
      await expectStoreError(store.advanceWatermark(9, 299n, 301n), WatermarkConflictError);
      expect(await store.laneWatermark(9)).toEqual({ lane: 9, w: 300n, floor: null });
    });

    it('a missing source offset (hole) stalls the lane; it is never squeezed out', async () => {
      const c = ctx();
      const store = await c.open();
      for (const o of [400n, 401n, 403n]) {
        const e = emptyDispatch(c);
        await store.beginDispatch(e.dispatchId, o, e.manifest, e.digest);
      }
      await store.advanceWatermark(3, null, 400n);
      await store.advanceWatermark(3, 400n, 401n);
      await expectStoreError(store.advanceWatermark(3, 401n, 403n), WatermarkStalledError);
      await expectStoreError(store.advanceWatermark(3, 401n, 402n), WatermarkStalledError);
      expect(await store.laneWatermark(3)).toEqual({ lane: 3, w: 401n, floor: null });
      const late = emptyDispatch(c);
      await store.beginDispatch(late.dispatchId, 402n, late.manifest, late.digest);
      await store.advanceWatermark(3, 401n, 402n);
      expect(await store.advanceWatermark(3, 402n, 403n)).toEqual({ lane: 3, w: 403n, floor: null });
    });

    it('a duplicate sight is a source of its lane too: W passes it only once the dispatch is complete there', async () => {
      const c = ctx();
      const store = await c.open();
      const d = oneLaneDispatch(c, 1);
      const receipt = await store.beginDispatch(d.dispatchId, 500n, d.manifest, d.digest);
      await store.beginDispatch(d.dispatchId, 501n, d.manifest, d.digest);
      const other = (d.lane + 7) % 64;
      expect(await store.advanceWatermark(other, null, 500n)).toMatchObject({ w: 500n });
      expect(await store.advanceWatermark(other, 500n, 501n)).toMatchObject({ w: 501n });
      await expectStoreError(store.advanceWatermark(d.lane, null, 500n), WatermarkStalledError);
      await store.markChunkCompleted(receipt, d.lane, 0);
      await store.advanceWatermark(d.lane, null, 500n);
      expect(await store.advanceWatermark(d.lane, 500n, 501n)).toEqual({ lane: d.lane, w: 501n, floor: null });
    });

    it('floor moves by CAS, never above W, never back; laneWatermark recomputes W above the floor', async () => {
      const c = ctx();
      const store = await c.open();
      await completeDispatch(c, store, oneLaneDispatch(c, 2), 600n);
      for (const o of [601n, 602n]) {
        const e = emptyDispatch(c);
        await store.beginDispatch(e.dispatchId, o, e.manifest, e.digest);
      }
      const lane = 11;
      await expectStoreError(store.advanceFloor(lane, null, 600n), WatermarkConflictError);
      await store.advanceWatermark(lane, null, 600n);
      await store.advanceWatermark(lane, 600n, 601n);
      await expectStoreError(store.advanceFloor(lane, null, 602n), WatermarkConflictError);
      expect(await store.advanceFloor(lane, null, 600n)).toEqual({ lane, w: 601n, floor: 600n });
      await expectStoreError(store.advanceFloor(lane, null, 601n), WatermarkConflictError);
      await expectStoreError(store.advanceFloor(lane, 600n, 599n), WatermarkConflictError);
      expect(await store.advanceFloor(lane, 600n, 600n)).toEqual({ lane, w: 601n, floor: 600n });
      expect(await store.laneWatermark(lane)).toEqual({ lane, w: 601n, floor: 600n });
      expect(await store.advanceFloor(lane, 600n, 601n)).toEqual({ lane, w: 601n, floor: 601n });
      expect(await store.laneWatermark(lane)).toEqual({ lane, w: 601n, floor: 601n });
      expect(await store.advanceWatermark(lane, 601n, 602n)).toEqual({ lane, w: 602n, floor: 601n });
      expect(await store.laneWatermark(lane)).toEqual({ lane, w: 602n, floor: 601n });
    });

    it('a lost completion fact below W: laneWatermark → WatermarkNotReady, dispatchProgress → CorruptEntry; a floor past it makes the lane ready again', async () => {
      const c = ctx();
      const store = await c.open();
      const d = oneLaneDispatch(c, 2);
      await completeDispatch(c, store, d, 900n);
      const e = emptyDispatch(c);
      await store.beginDispatch(e.dispatchId, 901n, e.manifest, e.digest);
      await store.advanceWatermark(d.lane, null, 900n);
      await store.advanceWatermark(d.lane, 900n, 901n);
      expect(await store.laneWatermark(d.lane)).toEqual({ lane: d.lane, w: 901n, floor: null });

      await c.harness.removeChunkCompletion(c.shardEpoch.shard, d.dispatchId, d.lane, 0);
      await expectStoreError(store.laneWatermark(d.lane), WatermarkNotReadyError);
      await expectStoreError(store.dispatchProgress(d.dispatchId), CorruptEntryError);
      const other = (d.lane + 1) % 64;
      expect(await store.laneWatermark(other)).toEqual({ lane: other, w: null, floor: null });

      await store.advanceFloor(d.lane, null, 900n);
      expect(await store.laneWatermark(d.lane)).toEqual({ lane: d.lane, w: 901n, floor: 900n });
    });
  });
}
