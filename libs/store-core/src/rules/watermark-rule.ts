import { CorruptEntryError, WatermarkConflictError, WatermarkNotReadyError, WatermarkStalledError } from '../errors/domain-errors';
import type { LaneWatermark } from '../model/mailbox';

/**
 * Lane watermark rules. Source offsets of the dispatch topic are contiguous; a lane's W is the
 * highest source offset up to which every recorded source of the lane is complete, walked one
 * offset at a time — a missing offset (hole) or an incomplete source stalls W, it is never
 * squeezed out. `floor ≤ W` anchors the walk: sources at or below the floor may be reclaimed.
 * `null` means "nothing proven" and sorts below every offset.
 */

/** One recorded source of a lane: its offset and whether all of the lane's chunks at it are complete. */
export interface LaneSource {
  readonly offset: bigint;
  readonly complete: boolean;
}

/**
 * Recomputes W from the lane's recorded sources: start at `floor + 1` (W = floor), or at the lowest
 * recorded offset when `floor` is null (W = null), and walk ascending contiguous offsets while each
 * is complete. Sources at or below the floor are ignored; input order is irrelevant. Two sources
 * with one offset → `CorruptEntryError`.
 */
export function recomputeWatermark(floor: bigint | null, sources: readonly LaneSource[]): bigint | null {
  const above = sources.filter((s) => floor === null || s.offset > floor).sort((a, b) => (a.offset < b.offset ? -1 : a.offset > b.offset ? 1 : 0));
  above.forEach((s, i) => {
    if (i > 0 && s.offset === above[i - 1]!.offset) throw new CorruptEntryError(`lane source offset ${s.offset} recorded twice`);
  });
  let w = floor;
  let expected = floor === null ? above[0]?.offset : floor + 1n;
  for (const s of above) {
    if (s.offset !== expected || !s.complete) break;
    w = s.offset;
    expected = s.offset + 1n;
  }
  return w;
}

/**
 * Verification of a stored `{w, floor}` against the recomputation from completion facts: neither W
 * nor the recomputed value may be below the floor and they must be equal; otherwise
 * `WatermarkNotReadyError`. Returns the stored watermark.
 */
export function verifyWatermark(stored: LaneWatermark, recomputed: bigint | null): LaneWatermark {
  const below = (v: bigint | null): boolean => stored.floor !== null && (v === null || v < stored.floor);
  if (below(stored.w) || below(recomputed) || stored.w !== recomputed) {
    throw new WatermarkNotReadyError(`lane ${stored.lane}: stored W ${String(stored.w)} / recomputed ${String(recomputed)} / floor ${String(stored.floor)}`);
  }
  return stored;
}

/** What `advanceWatermark` knows when it decides. */
export interface AdvanceFacts {
  /** The stored W. */
  readonly current: bigint | null;
  /** The caller's expected previous W. */
  readonly expectedPrev: bigint | null;
  /** The offset to move to. */
  readonly offset: bigint;
  /** Lowest recorded source offset of the lane (only consulted when `current` is null). */
  readonly lowestRecorded: bigint | null;
  /** Whether a source is recorded at `offset` in this lane. */
  readonly recorded: boolean;
  /** Whether every chunk of this lane of the dispatch at `offset` is complete. */
  readonly complete: boolean;
}

/** `noop`: W is already ≥ offset (idempotent repeat, return current); `advance`: CAS W → offset. */
export type AdvanceDecision = 'noop' | 'advance';

/**
 * Decides a watermark move, in this order: W already ≥ offset → `noop`; W ≠ expectedPrev →
 * `WatermarkConflictError`; offset is not the next one (`W + 1`, or from null the lowest recorded)
 * or not recorded (a hole) or its lane chunks incomplete → `WatermarkStalledError`; else `advance`.
 */
export function decideAdvance(f: AdvanceFacts): AdvanceDecision {
  if (f.current !== null && f.current >= f.offset) return 'noop';
  if (f.current !== f.expectedPrev) {
    throw new WatermarkConflictError(`W is ${String(f.current)}, expected ${String(f.expectedPrev)}`);
  }
  const next = f.current === null ? f.lowestRecorded : f.current + 1n;
  if (next === null || f.offset !== next || !f.recorded) {
    throw new WatermarkStalledError(`offset ${f.offset} is not the next recorded source (next ${String(next)})`);
  }
  if (!f.complete) throw new WatermarkStalledError(`chunks at offset ${f.offset} are incomplete`);
  return 'advance';
}

/**
 * Decides a floor move: stored floor ≠ `expectedFloor`, `newFloor` below the floor, or above W (or
 * W null) → `WatermarkConflictError`; `newFloor` equal to the floor → `noop`; else `advance`.
 */
export function decideFloor(current: LaneWatermark, expectedFloor: bigint | null, newFloor: bigint): AdvanceDecision {
  if (current.floor !== expectedFloor) {
    throw new WatermarkConflictError(`floor is ${String(current.floor)}, expected ${String(expectedFloor)}`);
  }
  if (current.floor !== null && newFloor < current.floor) throw new WatermarkConflictError(`floor never moves back (${current.floor} → ${newFloor})`);
  if (current.w === null || newFloor > current.w) throw new WatermarkConflictError(`floor ${newFloor} would pass W ${String(current.w)}`);
  return current.floor === newFloor ? 'noop' : 'advance';
}
