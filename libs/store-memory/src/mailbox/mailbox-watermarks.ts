import { GcNotSafeError, InvalidInputError, decideAdvance, decideFloor, recomputeWatermark, verifyWatermark } from '@qim/store-core';
import type { LaneSource, LaneWatermark } from '@qim/store-core';
import { dispatchKey, laneKey } from './memory-mailbox-backend';
import type { SourceRow, WatermarkRow } from './memory-mailbox-backend';
import { checkLane, laneComplete, manifestOf } from './mailbox-scope';
import type { MailboxScope } from './mailbox-scope';

function stored(s: MailboxScope, lane: number, now: bigint): WatermarkRow {
  return s.backend.watermarks.get(laneKey(s.shardEpoch.shard, lane), now) ?? { w: null, floor: null };
}

/** Whether the lane's chunks of the dispatch recorded at a source are all complete (unknown dispatch → not complete). */
function sourceComplete(s: MailboxScope, lane: number, src: SourceRow, now: bigint): boolean {
  const row = s.backend.progress.get(dispatchKey(s.shardEpoch.shard, src.dispatchId), now);
  return row !== null && laneComplete(s, manifestOf(row), lane, now);
}

function checkOffset(v: bigint, what: string): void {
  if (typeof v !== 'bigint' || v < 0n) throw new InvalidInputError(`${what} must be a u64 source offset`);
}

/**
 * `laneWatermark`: the stored `{w, floor}` verified against a recomputation from the completion
 * facts of the sources in `(floor, W]` — a hole or an incomplete source below W, or W below the
 * floor, is `WatermarkNotReadyError`.
 */
export function laneWatermark(s: MailboxScope, lane: number): LaneWatermark {
  checkLane(lane);
  const now = s.clock.nowMs();
  const row = stored(s, lane, now);
  const sources: LaneSource[] = s.backend.sources
    .scan(laneKey(s.shardEpoch.shard, lane), now)
    .filter(([offset]) => (row.floor === null || offset > row.floor) && row.w !== null && offset <= row.w)
    .map(([offset, src]) => ({ offset, complete: sourceComplete(s, lane, src, now) }));
  return verifyWatermark({ lane, ...row }, recomputeWatermark(row.floor, sources));
}

/**
 * `advanceWatermark`: a GC marker on the dispatch at `offset` → `GcNotSafeError`; then
 * `decideAdvance` (idempotent repeat, exact CAS from `expectedPrev`, only the next recorded offset,
 * only when the lane's chunks there are complete).
 */
export function advanceWatermark(s: MailboxScope, lane: number, expectedPrev: bigint | null, offset: bigint): LaneWatermark {
  checkLane(lane);
  checkOffset(offset, 'offset');
  if (expectedPrev !== null) checkOffset(expectedPrev, 'expectedPrev');
  const now = s.clock.nowMs();
  const lk = laneKey(s.shardEpoch.shard, lane);
  const src = s.backend.sources.get(lk, offset, now);
  if (src !== null && s.backend.progress.get(dispatchKey(s.shardEpoch.shard, src.dispatchId), now)?.gcDeadline != null) {
    throw new GcNotSafeError(`dispatch ${src.dispatchId} at offset ${offset} is scheduled for GC`);
  }
  const row = stored(s, lane, now);
  const lowest = row.w === null ? (s.backend.sources.scan(lk, now).find(([o]) => row.floor === null || o > row.floor)?.[0] ?? null) : null;
  const decision = decideAdvance({
    current: row.w,
    expectedPrev,
    offset,
    lowestRecorded: lowest,
    recorded: src !== null,
    complete: src !== null && sourceComplete(s, lane, src, now),
  });
  if (decision === 'noop') return { lane, ...row };
  s.backend.watermarks.put(lk, { w: offset, floor: row.floor }, null);
  return { lane, w: offset, floor: row.floor };
}

/** `advanceFloor`: CAS from `expectedFloor`, never back, never above W. */
export function advanceFloor(s: MailboxScope, lane: number, expectedFloor: bigint | null, newFloor: bigint): LaneWatermark {
  checkLane(lane);
  checkOffset(newFloor, 'newFloor');
  const now = s.clock.nowMs();
  const row = stored(s, lane, now);
  if (decideFloor({ lane, ...row }, expectedFloor, newFloor) === 'noop') return { lane, ...row };
  s.backend.watermarks.put(laneKey(s.shardEpoch.shard, lane), { w: row.w, floor: newFloor }, null);
  return { lane, w: row.w, floor: newFloor };
}
