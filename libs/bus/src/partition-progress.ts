import type { PartitionOffsets } from './group-offsets';

/**
 * How a partition of a consumer group moves, as the broker's offsets show it:
 * - `caught-up`: nothing waits behind the committed position;
 * - `draining`: records wait and the position moves (or has not stood still for the stall window yet);
 * - `stalled`: records wait and the position has not moved for the stall window — the consumer of
 *   that partition is refusing or failing (a source hole's `FRONTIER_GAP`, a refused shard, a store it
 *   cannot reach, a wedged member), not slowed by load. More sends do not make it worse: its records
 *   wait durably in Kafka for the operator's action.
 */
export type PartitionMotion = 'caught-up' | 'draining' | 'stalled';

/** The stall window stretches to this many times the longest recent gap between two moves of the position (slow heavy pages are not a stall)… */
export const STALL_GAP_FACTOR = 2;
/**
 * …up to this many times the configured window: with the default window (half the admission bound)
 * a stall is recognised by 0.75 of the bound, before its age can close the gate. (It was 6: after a
 * slow start under load the stretched window outlasted the bound, and the source-hole and
 * refused-shard drills saw the gate close for a moment in a fresh-clone run.)
 */
export const STALL_MAX_FACTOR = 1.5;
/** Gaps older than this (ms) are forgotten: the window comes back once heavy pages are over. */
export const GAP_MEMORY_MS = 60_000;
/** At most this many recent gaps are kept per partition. */
const GAPS_KEPT = 8;

interface Seen {
  readonly committed: bigint | null;
  /** When records were first seen waiting at this position (null: nothing waited at the last read). */
  waitingSince: number | null;
  /** Recent gaps (ms) between a move and the next while records waited, each with when it was seen. */
  readonly gaps: { readonly at: number; readonly ms: number }[];
}

const startOf = (p: PartitionOffsets): bigint => (p.committed === null || p.committed < p.low ? p.low : p.committed);

/**
 * Tells stalled partitions from draining ones, read after read (one instance per watched group; pure:
 * the caller passes the offsets and the clock). A partition is stalled once records have waited at the
 * same committed position for `windowMs(partition)`: the configured `stallMs`, stretched to
 * `STALL_GAP_FACTOR` × the longest gap between two moves of the position seen over the last
 * `GAP_MEMORY_MS` (a consumer whose pages take 4 s is slow, not stalled), at most `STALL_MAX_FACTOR` ×
 * `stallMs`. Only a gap shorter than the window then in force is remembered: a stall never stretches
 * the window for the next one. Read from the broker alone, so it covers every cause of a stall
 * without the mailbox saying so; the price is that a stall is recognised only after the window.
 */
export class PartitionProgress {
  private readonly seen = new Map<number, Seen>();

  constructor(private readonly stallMs: number) {
    if (!Number.isSafeInteger(stallMs) || stallMs < 1) throw new RangeError(`PartitionProgress stallMs must be an integer ≥ 1, got ${stallMs}`);
  }

  /** The stall window in force for `partition` now (ms). */
  windowMs(partition: number, nowMs?: number): number {
    const gaps = this.seen.get(partition)?.gaps ?? [];
    const longest = gaps.filter((g) => nowMs === undefined || nowMs - g.at < GAP_MEMORY_MS).reduce((m, g) => Math.max(m, g.ms), 0);
    return Math.min(this.stallMs * STALL_MAX_FACTOR, Math.max(this.stallMs, longest * STALL_GAP_FACTOR));
  }

  /**
   * Whether `partition`, with records waiting, has stood still at its position for at least half
   * the stall window in force at `nowMs` (as of the last `observe`): a stall may be under way, and
   * until the window decides, its group's drain time is not estimated (ADR-0023 decision 11).
   */
  standingStill(partition: number, nowMs: number): boolean {
    const since = this.seen.get(partition)?.waitingSince;
    return since != null && (nowMs - since) * 2 >= this.windowMs(partition, nowMs);
  }

  /** Classifies every partition of one read taken at `nowMs` and remembers it for the next. */
  observe(partitions: readonly PartitionOffsets[], nowMs: number): Map<number, PartitionMotion> {
    const out = new Map<number, PartitionMotion>();
    for (const p of partitions) {
      const waiting = p.end > startOf(p);
      const before = this.seen.get(p.partition);
      if (before === undefined || before.committed !== p.committed) {
        const gaps = before?.gaps ?? [];
        while (gaps.length > 0 && nowMs - gaps[0]!.at >= GAP_MEMORY_MS) gaps.shift();
        if (before?.waitingSince != null) {
          const gap = nowMs - before.waitingSince;
          if (gap < this.windowMs(p.partition, nowMs)) gaps.push({ at: nowMs, ms: gap });
          if (gaps.length > GAPS_KEPT) gaps.shift();
        }
        this.seen.set(p.partition, { committed: p.committed, waitingSince: waiting ? nowMs : null, gaps });
        out.set(p.partition, waiting ? 'draining' : 'caught-up');
        continue;
      }
      if (!waiting) {
        before.waitingSince = null;
        out.set(p.partition, 'caught-up');
        continue;
      }
      before.waitingSince ??= nowMs;
      out.set(p.partition, nowMs - before.waitingSince >= this.windowMs(p.partition, nowMs) ? 'stalled' : 'draining');
    }
    return out;
  }
}

/**
 * Per partition, the highest position any of `older` groups committed (the groups of earlier epochs
 * of the same consumer, on the same topic), where it is within the partition (≤ its log end: a
 * position past the end belongs to an earlier incarnation of a recreated topic and says nothing).
 */
export function replayHorizon(older: readonly (readonly PartitionOffsets[])[]): Map<number, bigint> {
  const horizon = new Map<number, bigint>();
  for (const group of older) {
    for (const p of group) {
      if (p.committed === null || p.committed > p.end) continue;
      const h = horizon.get(p.partition);
      if (h === undefined || p.committed > h) horizon.set(p.partition, p.committed);
    }
  }
  return horizon;
}

/**
 * The partitions whose position is below the horizon: the group is re-reading records an older
 * epoch's group already delivered (the replay a new mailbox epoch starts with), which is not
 * backlog that sending less would shorten.
 */
export function replayingPartitions(partitions: readonly PartitionOffsets[], horizon: ReadonlyMap<number, bigint>): Set<number> {
  const out = new Set<number>();
  for (const p of partitions) {
    const h = horizon.get(p.partition);
    if (h !== undefined && startOf(p) < h) out.add(p.partition);
  }
  return out;
}
