import { CorruptEntryError, InvalidInputError, LANE_COUNT, gcDeadlineAt, gcEligible, nextGcPhase, resolveGcDeadline } from '@qim/store-core';
import type { HousekeepingReport, Id128, LaneWatermark } from '@qim/store-core';
import { chunkKey, dispatchKey, laneKey } from './memory-mailbox-backend';
import type { CompletedRow, ProgressRow } from './memory-mailbox-backend';
import { dispatchProgress } from './mailbox-dispatch';
import type { MailboxScope } from './mailbox-scope';

/** Physically drops expired dispatch bookkeeping rows (they are already invisible). */
function sweepExpired(s: MailboxScope, now: bigint): void {
  const b = s.backend;
  for (const t of [b.progress, b.observations, b.sources, b.chunks, b.completed]) t.sweep(now, Number.MAX_SAFE_INTEGER);
}

function storedLanes(s: MailboxScope, now: bigint): LaneWatermark[] {
  return Array.from({ length: LANE_COUNT }, (_, lane) => ({ lane, w: null, floor: null, ...s.backend.watermarks.get(laneKey(s.shardEpoch.shard, lane), now) }));
}

/**
 * Phase 1: every child fact (lane sources at every observed offset, chunk facts, observation rows)
 * gets the deadline as its expiry — rows that already have one are never renewed, rows already
 * gone are tolerated.
 */
function scheduleChildren(s: MailboxScope, dispatchId: Id128, deadline: bigint, now: bigint): void {
  const { shard } = s.shardEpoch;
  const dk = dispatchKey(shard, dispatchId);
  const offsets = s.backend.observations.scan(dk, now).map(([o]) => o);
  for (let lane = 0; lane < LANE_COUNT; lane++) {
    const lk = laneKey(shard, lane);
    for (const o of offsets) if (s.backend.sources.get(lk, o, now)?.dispatchId === dispatchId) s.backend.sources.scheduleExpiry(lk, o, deadline, now);
    const ck = chunkKey(shard, dispatchId, lane);
    for (const [id] of s.backend.chunks.scan(ck, now)) s.backend.chunks.scheduleExpiry(ck, id, deadline, now);
  }
  for (const o of offsets) s.backend.observations.scheduleExpiry(dk, o, deadline, now);
}

/** Fixes the marker if needed and runs the phases; returns whether anything was done. */
function collect(s: MailboxScope, idxKey: string, idx: CompletedRow, cutoffMs: bigint, now: bigint): 'done' | 'skip' | 'work' {
  const { shard } = s.shardEpoch;
  const dk = dispatchKey(shard, idx.dispatchId);
  const b = s.backend;
  let progress: ProgressRow | null = b.progress.get(dk, now);
  let deadline = resolveGcDeadline(progress?.gcDeadline ?? null, idx.gcDeadline);
  if (deadline === null) {
    if (progress === null) throw new CorruptEntryError(`completed dispatch ${idx.dispatchId} has neither progress nor GC marker`);
    const view = dispatchProgress(s, idx.dispatchId)!;
    if (!gcEligible(view, storedLanes(s, now), cutoffMs)) return 'skip';
    deadline = gcDeadlineAt(now, s.gc.dispatchGcDelayMs);
    progress = { ...progress, gcDeadline: deadline };
    b.progress.update(dk, progress, now);
  }
  const fixed = deadline;
  let worked = false;
  if (idx.gcDeadline === null) {
    b.completed.update(String(shard), idxKey, { ...idx, gcDeadline: fixed }, now);
    worked = true;
  }
  if (progress !== null && progress.gcPhase !== 2) {
    if (progress.gcPhase === null) progress = { ...progress, gcPhase: nextGcPhase(null) };
    b.progress.update(dk, progress, now);
    scheduleChildren(s, idx.dispatchId, fixed, now);
    progress = { ...progress, gcPhase: nextGcPhase(progress.gcPhase) };
    b.progress.update(dk, progress, now);
    worked = true;
  }
  if (progress !== null && b.progress.scheduleExpiry(dk, fixed, now)) worked = true;
  if (b.completed.scheduleExpiry(String(shard), idxKey, fixed, now)) worked = true;
  return worked ? 'work' : 'done';
}

/**
 * `gcCompletedDispatches`: walks the completed index of the shard (oldest first). A dispatch
 * without a marker is collected only when `gcEligible`; then ONE deadline is fixed on progress and
 * mirrored to the index, phase null → 1 (children get the deadline as expiry, never renewed),
 * 1 → 2, and finally progress and index get it too. A dispatch with nothing left to do does not
 * count against `limit`. `reclaimed` counts dispatches this pass advanced.
 */
export function gcCompletedDispatches(s: MailboxScope, cutoffMs: bigint, limit: number): HousekeepingReport {
  if (!Number.isInteger(limit) || limit < 1) throw new InvalidInputError(`limit must be an integer ≥ 1: ${limit}`);
  const now = s.clock.nowMs();
  sweepExpired(s, now);
  let examined = 0;
  let reclaimed = 0;
  for (const [key, idx] of s.backend.completed.scan(String(s.shardEpoch.shard), now)) {
    if (reclaimed >= limit) return { examined, reclaimed, more: true };
    examined++;
    if (collect(s, key, idx, cutoffMs, now) === 'work') reclaimed++;
  }
  return { examined, reclaimed, more: false };
}
