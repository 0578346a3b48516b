import { CorruptEntryError, InvalidStateError, InvariantViolationError } from '../errors/domain-errors';
import { LANE_COUNT } from '../model/mailbox';
import type { DispatchProgress, LaneWatermark } from '../model/mailbox';
import { assertU64 } from '../model/u64';

/**
 * Dispatch GC policy (seed "gc_completed_dispatches"): ONE deadline is fixed once per dispatch
 * (`now + dispatchGcDelayMs`) and never renewed; phases `null → 1 → 2`; every bookkeeping row is
 * rewritten whole with the *remaining* TTL to that deadline, and a row that already carries a
 * positive TTL is skipped — so a retry or a periodic scan can never extend a lease.
 */

/** Largest TTL a CQL server accepts (20 years, seconds). */
export const MAX_TTL_SECONDS = 630_720_000;

/**
 * Remaining TTL in whole seconds to `deadlineMs` at `nowMs`: `max(1, ceil((deadline − now) / 1000))`.
 * A past deadline still yields 1 (the row vanishes at once, but through a TTL, never a DELETE).
 * Beyond `MAX_TTL_SECONDS` → `InvariantViolationError`.
 */
export function gcRemainingTtlSeconds(deadlineMs: bigint, nowMs: bigint): number {
  const diff = deadlineMs - nowMs;
  const secs = diff <= 0n ? 1n : (diff + 999n) / 1000n;
  if (secs > BigInt(MAX_TTL_SECONDS)) throw new InvariantViolationError(`GC TTL ${secs}s exceeds ${MAX_TTL_SECONDS}s`);
  return Number(secs);
}

/**
 * Whether a GC pass must rewrite a row with the remaining TTL, given the TTL the row carries now
 * (seconds; null or 0 = no TTL). No TTL → true (the original fact, not yet scheduled). A positive
 * TTL → false: the row is already scheduled and is never renewed. Negative → `InvariantViolationError`.
 */
export function mustRewriteWithTtl(existingTtlSeconds: number | null): boolean {
  if (existingTtlSeconds === null || existingTtlSeconds === 0) return true;
  if (!Number.isInteger(existingTtlSeconds) || existingTtlSeconds < 0) {
    throw new InvariantViolationError(`a row TTL must be a non-negative integer: ${existingTtlSeconds}`);
  }
  return false;
}

/**
 * The gate before a GC marker may be fixed: the dispatch is complete, `lastSeenAt ≤ cutoffMs`, and
 * every one of the 64 lanes has both W and floor ≥ `maxObservedOffset` (a missing lane → false).
 * A dispatch that already carries a marker is resumed by the GC regardless of this gate.
 */
export function gcEligible(progress: DispatchProgress, lanes: readonly LaneWatermark[], cutoffMs: bigint): boolean {
  if (progress.completedAt === null || progress.lastSeenAt > cutoffMs) return false;
  const max = progress.maxObservedOffset;
  const byLane = new Map(lanes.map((l) => [l.lane, l]));
  for (let lane = 0; lane < LANE_COUNT; lane++) {
    const l = byLane.get(lane);
    if (l === undefined || l.w === null || l.floor === null || l.w < max || l.floor < max) return false;
  }
  return true;
}

/** The one GC deadline fixed with the marker: `nowMs + delayMs` (u64). */
export function gcDeadlineAt(nowMs: bigint, delayMs: bigint): bigint {
  return assertU64(assertU64(nowMs, 'now') + assertU64(delayMs, 'GC delay'), 'GC deadline');
}

/**
 * The fixed deadline from its two copies (progress row, completed index mirror): equal values or
 * only one present → that value; neither → null (no marker yet; the caller decides whether it may
 * fix one); two different values → `CorruptEntryError` (never guessed, never re-fixed).
 */
export function resolveGcDeadline(fromProgress: bigint | null, fromIndex: bigint | null): bigint | null {
  if (fromProgress !== null && fromIndex !== null && fromProgress !== fromIndex) {
    throw new CorruptEntryError(`GC deadline copies disagree: progress ${fromProgress}, index ${fromIndex}`);
  }
  return fromProgress ?? fromIndex;
}

/** The GC phase after `phase`: null → 1 (children rewritten next), 1 → 2 (progress/index next); 2 is last → `InvalidStateError`. */
export function nextGcPhase(phase: 1 | 2 | null): 1 | 2 {
  if (phase === null) return 1;
  if (phase === 1) return 2;
  throw new InvalidStateError('GC phase 2 is the last phase');
}
