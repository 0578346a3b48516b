import type { PartitionOffsets } from './group-offsets';
import { parseCommitPositionMetadata } from './partition-consumer';

/** A consumer group and the topic it consumes, watched by `DeliveryLagProbe`. */
export interface WatchedGroup {
  readonly groupId: string;
  readonly topic: string;
}

/** What one read found about one watched group. */
export interface GroupLag extends WatchedGroup {
  /** Members the group has (0: nobody consumes for it now). */
  readonly members: number;
  /** Age (ms) of the oldest record behind the group's committed position; 0 when caught up; null when no partition says. */
  readonly lagMs: number | null;
  /** Records between the committed positions and the log ends, over all partitions. */
  readonly behindRecords: bigint;
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
   * The age (ms) of the oldest record waiting in any of them; 0 when none is behind. A group
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

/**
 * One group's lag over its partitions (see `GroupLag`). `caughtUpAt` (by partition) is when a
 * partition was last seen with nothing behind its position: records waiting now came after that, so
 * their wait is at most the time since — which bounds the metadata's over-statement after an idle spell
 * (the last record handled before it may be hours old while the first one after it is fresh).
 */
export function groupLag(group: WatchedGroup, members: number, partitions: readonly PartitionOffsets[], nowMs: number, caughtUpAt?: ReadonlyMap<number, number>): GroupLag {
  let lagMs: number | null = null;
  let unknownPartitions = 0;
  let behindRecords = 0n;
  for (const p of partitions) {
    const from = p.committed === null ? p.low : p.committed > p.low ? p.committed : p.low;
    if (p.end > from) behindRecords += p.end - from;
    const seen = caughtUpAt?.get(p.partition);
    const byPosition = positionLagMs(p, nowMs);
    const lag = seen === undefined || byPosition === 0 ? byPosition : Math.min(byPosition ?? Number.POSITIVE_INFINITY, Math.max(0, nowMs - seen));
    if (lag === null) unknownPartitions += 1;
    else lagMs = Math.max(lagMs ?? 0, lag);
  }
  return { ...group, members, lagMs, behindRecords, unknownPartitions, drainMs: behindRecords === 0n ? 0 : null, recordsPerSecond: null };
}

/** The records a group has consumed, summed over partitions (its committed positions, or the log start where it has none). */
function consumedRecords(partitions: readonly PartitionOffsets[]): bigint {
  return partitions.reduce((sum, p) => sum + (p.committed === null || p.committed < p.low ? p.low : p.committed), 0n);
}

/** The pace is measured over the reads of the last this many ms of an unbroken backlog… */
export const PACE_WINDOW_MS = 5_000;
/** …once they span at least this long (a consumer commits page by page: a heavy page can take seconds). */
export const PACE_MIN_SPAN_MS = 1_000;

/** The consumer-group reads the probe needs (`GroupOffsetsReader`). */
export interface GroupOffsetsSource {
  offsets(groupId: string, topic: string): Promise<PartitionOffsets[]>;
  members(groupId: string): Promise<number>;
}

/**
 * Reads how far the consumers of the watched groups are behind, in time, from the broker alone: each
 * group's committed offsets, the metadata committed with them and the log ends (no record is
 * fetched). The writer's admission gate polls it to hold sends while the mailbox is behind.
 *
 * Two views of "behind", both answered: the age of the oldest record waiting (`GroupLag.lagMs`),
 * and how long the backlog will take to drain (`GroupLag.drainMs`) at the pace
 * the group handled records between two reads that both found it behind — its capacity for the
 * current mix of records (a dispatch of a 1,000-member conversation is far more work than one of
 * three). The age alone reacts late: when a fast burst has just been accepted the oldest record is
 * young, but the records behind it already hold many seconds of work. The pace alone misleads when
 * the group merely keeps up (records wait only for the next commit, and the pace is what arrived,
 * not what it could do): `AdmissionGate` therefore weighs the drain only once the age says the
 * group really is behind.
 */
export class DeliveryLagProbe {
  /** Per group, the reads (time, records consumed) of its current unbroken backlog, oldest first, within the pace window. */
  private readonly stretch = new Map<string, { at: number; consumed: bigint }[]>();
  /** Per group, when each partition was last read with nothing behind its position. */
  private readonly caughtUp = new Map<string, Map<number, number>>();

  constructor(
    private readonly source: GroupOffsetsSource,
    private readonly groups: readonly WatchedGroup[],
    private readonly now: () => number = Date.now,
  ) {
    if (groups.length === 0) throw new RangeError('DeliveryLagProbe needs at least one group to watch');
  }

  async read(): Promise<DeliveryLag> {
    const found = await Promise.all(
      this.groups.map(async (g) => {
        const [members, partitions] = await Promise.all([this.source.members(g.groupId), this.source.offsets(g.groupId, g.topic)]);
        const now = this.now();
        const key = `${g.groupId}\0${g.topic}`;
        const caughtUp = this.caughtUp.get(key) ?? new Map<number, number>();
        const lag = groupLag(g, members, partitions, now, caughtUp);
        for (const p of partitions) if (p.committed !== null && p.committed >= p.end) caughtUp.set(p.partition, now);
        this.caughtUp.set(key, caughtUp);
        const perSecond = this.measurePace(key, now, consumedRecords(partitions), lag.behindRecords > 0n);
        const drainMs = lag.behindRecords === 0n ? 0 : perSecond !== null && perSecond > 0 ? Math.round((Number(lag.behindRecords) / perSecond) * 1000) : null;
        return { ...lag, drainMs, recordsPerSecond: perSecond };
      }),
    );
    const live = found.filter((g) => g.members > 0);
    return { ageMs: Math.max(0, ...live.map((g) => g.lagMs ?? 0)), drainMs: Math.max(0, ...live.map((g) => g.drainMs ?? 0)), groups: found };
  }

  /**
   * The group's pace (records/s): the records it consumed over the reads of its current backlog
   * (every read since the last one that found it caught up, the last `PACE_WINDOW_MS` of them) once
   * they span `PACE_MIN_SPAN_MS`; null otherwise — a group that caught up in between handled only
   * what came, and a pace from another stretch may belong to another mix of records. Also null
   * when nothing was consumed over the window (a stalled consumer: its age then grows instead) or
   * the count went back (offsets reset).
   */
  private measurePace(key: string, at: number, consumed: bigint, behind: boolean): number | null {
    if (!behind) {
      this.stretch.delete(key);
      return null;
    }
    let reads = this.stretch.get(key) ?? [];
    if (reads.length > 0 && consumed < reads[reads.length - 1]!.consumed) reads = [];
    reads.push({ at, consumed });
    while (reads.length > 2 && at - reads[1]!.at >= PACE_WINDOW_MS) reads.shift();
    this.stretch.set(key, reads);
    const first = reads[0]!;
    const span = at - first.at;
    if (span < PACE_MIN_SPAN_MS || consumed <= first.consumed) return null;
    return (Number(consumed - first.consumed) * 1000) / span;
  }
}
