import type { PartitionOffsets } from './group-offsets';
import { parseCommitPositionMetadata } from './partition-consumer';

/** A consumer group and the topic it consumes, watched by `DeliveryLagProbe`. */
export interface WatchedGroup {
  readonly groupId: string;
  readonly topic: string;
  /**
   * Groups of earlier epochs of the same consumer on the same topic: where this group's position is
   * below the highest they committed, it re-reads records already delivered (a replay, not counted).
   */
  readonly replayOf?: readonly string[];
}

/** What one read found about one watched group. */
export interface GroupLag extends WatchedGroup {
  /** Members the group has (0: nobody consumes for it now). */
  readonly members: number;
  /** Age (ms) of the oldest record behind the group's committed position; 0 when caught up; null when no partition says. */
  readonly lagMs: number | null;
  /** Records between the committed positions and the log ends, over the partitions that count (neither stalled nor replaying). */
  readonly behindRecords: bigint;
  /**
   * Partitions whose position has stood still for the stall window while records waited
   * (`PartitionProgress`): a consumer refusing or failing, not slowed by load. Not counted in
   * `lagMs`, `behindRecords` or `drainMs`; their alarm is their own (metric, log, shard status).
   */
  readonly stalledPartitions: readonly number[];
  /** Partitions re-reading what an older epoch's group delivered (`WatchedGroup.replayOf`); not counted either. */
  readonly replayingPartitions: readonly number[];
  /** Partitions with records behind the committed position whose age is unknown (never committed, or no position metadata). */
  readonly unknownPartitions: number;
  /**
   * How long the records now behind will take at the pace the group has been handling records
   * while it had a backlog (ms): `behindRecords` ÷ that pace; 0 with nothing behind; null before
   * the pace is known (set by `DeliveryLagProbe`, which measures it between reads).
   */
  readonly drainMs: number | null;
  /** That pace (records/s), or null before it is known. */
  readonly recordsPerSecond: number | null;
}

/** The result of one `DeliveryLagProbe.read`, over the groups that have members. */
export interface DeliveryLag {
  /**
   * The age (ms) of the oldest record waiting in any of their draining partitions (stalled and
   * replaying ones do not count); 0 when none is behind. A group
   * without members counts for nothing (a stopped consumer's backlog is its operators' alert, not a
   * reason to refuse sends that wait durably in Kafka for it).
   */
  readonly ageMs: number;
  /** The longest time (ms) any of them needs to drain its backlog at its measured pace (0: none known). */
  readonly drainMs: number;
  readonly groups: readonly GroupLag[];
}

/**
 * How long the records right behind a partition's committed position have waited, at `nowMs`: 0 when
 * the position is at the log end (nothing waits); otherwise `nowMs` minus the timestamp the consumer
 * stored with its commit (`commitPositionMetadata`: the last record it had handled), which is never
 * later than the next record's own — so this over-states the wait by at most the time between two
 * records. Null when it cannot be told: records wait but the position was never committed, or was
 * committed without that metadata.
 */
export function positionLagMs(p: PartitionOffsets, nowMs: number): number | null {
  const position = p.committed ?? null;
  if (position === null) return p.end > p.low ? null : 0;
  if (position >= p.end) return 0;
  const at = parseCommitPositionMetadata(p.metadata);
  return at === null ? null : Math.max(0, nowMs - at);
}

/** Partitions of one group that do not count for its lag (see `GroupLag`). */
export interface ExcludedPartitions {
  readonly stalled: ReadonlySet<number>;
  readonly replaying: ReadonlySet<number>;
}

const NONE: ExcludedPartitions = { stalled: new Set(), replaying: new Set() };

/**
 * One group's lag over its partitions (see `GroupLag`), leaving out the `excluded` ones (a partition
 * both stalled and replaying is reported stalled: that is the one to act on). `caughtUpAt` (by
 * partition) is when a partition was last seen with nothing behind its position: records waiting now
 * came after that, so their wait is at most the time since — which bounds the metadata's
 * over-statement after an idle spell (the last record handled before it may be hours old while the
 * first one after it is fresh).
 */
export function groupLag(
  group: WatchedGroup,
  members: number,
  partitions: readonly PartitionOffsets[],
  nowMs: number,
  caughtUpAt?: ReadonlyMap<number, number>,
  excluded: ExcludedPartitions = NONE,
): GroupLag {
  let lagMs: number | null = null;
  let unknownPartitions = 0;
  let behindRecords = 0n;
  const stalledPartitions: number[] = [];
  const replayingPartitions: number[] = [];
  for (const p of partitions) {
    if (excluded.stalled.has(p.partition)) stalledPartitions.push(p.partition);
    else if (excluded.replaying.has(p.partition)) replayingPartitions.push(p.partition);
    else {
      const from = p.committed === null ? p.low : p.committed > p.low ? p.committed : p.low;
      if (p.end > from) behindRecords += p.end - from;
      const seen = caughtUpAt?.get(p.partition);
      const byPosition = positionLagMs(p, nowMs);
      const lag = seen === undefined || byPosition === 0 ? byPosition : Math.min(byPosition ?? Number.POSITIVE_INFINITY, Math.max(0, nowMs - seen));
      if (lag === null) unknownPartitions += 1;
      else lagMs = Math.max(lagMs ?? 0, lag);
    }
  }
  return {
    ...group,
    members,
    lagMs,
    behindRecords,
    unknownPartitions,
    stalledPartitions,
    replayingPartitions,
    drainMs: behindRecords === 0n ? 0 : null,
    recordsPerSecond: null,
  };
}
