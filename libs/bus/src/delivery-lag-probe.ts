import type { DeliveryLag, GroupLag, WatchedGroup } from './consumer-lag';
import { groupLag } from './consumer-lag';
import type { PartitionOffsets } from './group-offsets';
import { PartitionProgress, replayHorizon, replayingPartitions } from './partition-progress';

/** The pace is measured over the reads of the last this many ms of an unbroken backlog… */
export const PACE_WINDOW_MS = 5_000;
/** …once they span at least this long (a consumer commits page by page: a heavy page can take seconds). */
export const PACE_MIN_SPAN_MS = 1_000;

/** The consumer-group reads the probe needs (`GroupOffsetsReader`). */
export interface GroupOffsetsSource {
  offsets(groupId: string, topic: string): Promise<PartitionOffsets[]>;
  members(groupId: string): Promise<number>;
}

/** Finds the groups to watch anew (`MailboxGroupFinder`). */
export interface WatchedGroupsFinder {
  find(): Promise<readonly WatchedGroup[]>;
}

export interface DeliveryLagProbeOptions {
  /** A partition is stalled after records waited this long at one position (ms, default 5,000; `PartitionProgress`). */
  readonly stallMs?: number;
  /** A read not answered within this (ms, default 10,000) fails with `LagReadTimeoutError`. */
  readonly readTimeoutMs?: number;
  /** With a finder: the watched groups are found anew at most this often (ms, default 5,000). */
  readonly rediscoverMs?: number;
  /** With a finder: the groups watched, at the first read and whenever they change. */
  readonly onWatch?: (groups: readonly WatchedGroup[]) => void;
}

/** A lag read that the broker did not answer in time; counts as a failed read. */
export class LagReadTimeoutError extends Error {
  readonly code = 'LAG_READ_TIMEOUT';
  constructor(message: string) {
    super(message);
    this.name = 'LagReadTimeoutError';
  }
}

/** The records a group has consumed on the given partitions (its committed positions, or the log start where it has none). */
function consumedRecords(partitions: readonly PartitionOffsets[]): bigint {
  return partitions.reduce((sum, p) => sum + (p.committed === null || p.committed < p.low ? p.low : p.committed), 0n);
}

/**
 * Reads how far the consumers of the watched groups are behind, in time, from the broker alone: each
 * group's committed offsets, the metadata committed with them and the log ends (no record is
 * fetched). The writer's admission gate polls it to hold sends while the mailbox is behind.
 *
 * Two views of "behind", both answered: the age of the oldest record waiting (`GroupLag.lagMs`),
 * and how long the backlog will take to drain (`GroupLag.drainMs`) at the pace the group handled
 * records between two reads that both found it behind — its capacity for the current mix of records
 * (a dispatch of a 1,000-member conversation is far more work than one of three). The age alone
 * reacts late: when a fast burst has just been accepted the oldest record is young, but the records
 * behind it already hold many seconds of work. The pace alone misleads when the group merely keeps
 * up (records wait only for the next commit, and the pace is what arrived, not what it could do):
 * `AdmissionGate` therefore weighs the drain only once the age says the group really is behind.
 *
 * Only backlog caused by load counts (ADR-0023 amendment): a partition that stalled (its position
 * stood still while records waited: a refused shard, a source hole) and one a new epoch replays
 * are reported in `stalledPartitions` / `replayingPartitions` and left out of the lag. Every read is
 * bounded (`readTimeoutMs`); while one is still unanswered the next fails at once instead of piling
 * up requests on a broker that does not answer.
 */
export class DeliveryLagProbe {
  /** Per group, the reads (time, records consumed) of its current unbroken backlog, oldest first, within the pace window. */
  private readonly stretch = new Map<string, { at: number; consumed: bigint; counted: string }[]>();
  /** Per group, when each partition was last read with nothing behind its position. */
  private readonly caughtUp = new Map<string, Map<number, number>>();
  private readonly progress = new Map<string, PartitionProgress>();
  private readonly opts: Required<Omit<DeliveryLagProbeOptions, 'onWatch'>> & Pick<DeliveryLagProbeOptions, 'onWatch'>;
  private watched: readonly WatchedGroup[] = [];
  private foundAt: number | null = null;
  private pending: Promise<DeliveryLag> | null = null;

  constructor(
    private readonly source: GroupOffsetsSource,
    private readonly groups: readonly WatchedGroup[] | WatchedGroupsFinder,
    private readonly now: () => number = Date.now,
    options: DeliveryLagProbeOptions = {},
  ) {
    if (Array.isArray(groups) && groups.length === 0) throw new RangeError('DeliveryLagProbe needs at least one group to watch');
    this.opts = { stallMs: 5_000, readTimeoutMs: 10_000, rediscoverMs: 5_000, ...options };
    for (const k of ['stallMs', 'readTimeoutMs', 'rediscoverMs'] as const) {
      if (!Number.isSafeInteger(this.opts[k]) || this.opts[k] < 1) throw new RangeError(`DeliveryLagProbe ${k} must be an integer ≥ 1, got ${this.opts[k]}`);
    }
  }

  /** One read of every watched group, bounded by `readTimeoutMs`. */
  async read(): Promise<DeliveryLag> {
    if (this.pending !== null) throw new LagReadTimeoutError('the previous delivery lag read is still unanswered (broker not answering)');
    const inner = this.readOnce();
    this.pending = inner;
    const clear = (): void => void (this.pending === inner && (this.pending = null));
    inner.then(clear, clear);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new LagReadTimeoutError(`delivery lag read not answered within ${this.opts.readTimeoutMs} ms`)), this.opts.readTimeoutMs);
    });
    try {
      return await Promise.race([inner, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async watchedGroups(): Promise<readonly WatchedGroup[]> {
    if (Array.isArray(this.groups)) return this.groups;
    const finder = this.groups as WatchedGroupsFinder;
    const now = this.now();
    if (this.foundAt === null || now - this.foundAt >= this.opts.rediscoverMs) {
      const found = await finder.find();
      this.foundAt = now;
      if (JSON.stringify(found) !== JSON.stringify(this.watched)) {
        this.watched = found;
        this.opts.onWatch?.(found);
      }
    }
    return this.watched;
  }

  private async readOnce(): Promise<DeliveryLag> {
    const groups = await this.watchedGroups();
    const found = await Promise.all(groups.map((g) => this.readGroup(g)));
    const live = found.filter((g) => g.members > 0);
    return { ageMs: Math.max(0, ...live.map((g) => g.lagMs ?? 0)), drainMs: Math.max(0, ...live.map((g) => g.drainMs ?? 0)), groups: found };
  }

  private async readGroup(g: WatchedGroup): Promise<GroupLag> {
    const [members, partitions, older] = await Promise.all([
      this.source.members(g.groupId),
      this.source.offsets(g.groupId, g.topic),
      Promise.all((g.replayOf ?? []).map((o) => this.source.offsets(o, g.topic))),
    ]);
    const now = this.now();
    const key = `${g.groupId}\0${g.topic}`;
    let progress = this.progress.get(key);
    if (progress === undefined) this.progress.set(key, (progress = new PartitionProgress(this.opts.stallMs)));
    const motion = progress.observe(partitions, now);
    const stalled = new Set([...motion].filter(([, m]) => m === 'stalled').map(([p]) => p));
    const replaying = replayingPartitions(partitions, replayHorizon(older));
    const caughtUp = this.caughtUp.get(key) ?? new Map<number, number>();
    const lag = groupLag(g, members, partitions, now, caughtUp, { stalled, replaying });
    for (const p of partitions) if (p.committed !== null && p.committed >= p.end) caughtUp.set(p.partition, now);
    this.caughtUp.set(key, caughtUp);
    const counted = partitions.filter((p) => !stalled.has(p.partition) && !replaying.has(p.partition));
    const perSecond = this.measurePace(key, now, consumedRecords(counted), lag.behindRecords > 0n, counted.map((p) => p.partition).join(','));
    // A partition standing still may be a stall the window has not confirmed yet: its pace is tiny and
    // its drain time huge, which is not load (ADR-0023 decision 11). Its age still counts.
    const stillOne = counted.some((p) => progress.standingStill(p.partition, now));
    const drainMs =
      lag.behindRecords === 0n ? 0 : !stillOne && perSecond !== null && perSecond > 0 ? Math.round((Number(lag.behindRecords) / perSecond) * 1000) : null;
    return { ...lag, drainMs, recordsPerSecond: perSecond };
  }

  /**
   * The group's pace (records/s) on the partitions that count: the records it consumed over the
   * reads of its current backlog (every read since the last one that found it caught up, the last
   * `PACE_WINDOW_MS` of them) once they span `PACE_MIN_SPAN_MS`; null otherwise — a group that caught
   * up in between handled only what came, and a pace from another stretch may belong to another mix
   * of records. Also null when nothing was consumed over the window (a stalled consumer: its age then
   * grows instead), the count went back (offsets reset) or the partitions that count changed.
   */
  private measurePace(key: string, at: number, consumed: bigint, behind: boolean, counted: string): number | null {
    if (!behind) {
      this.stretch.delete(key);
      return null;
    }
    let reads = this.stretch.get(key) ?? [];
    const last = reads[reads.length - 1];
    if (last !== undefined && (consumed < last.consumed || counted !== last.counted)) reads = [];
    reads.push({ at, consumed, counted });
    while (reads.length > 2 && at - reads[1]!.at >= PACE_WINDOW_MS) reads.shift();
    this.stretch.set(key, reads);
    const first = reads[0]!;
    const span = at - first.at;
    if (span < PACE_MIN_SPAN_MS || consumed <= first.consumed) return null;
    return (Number(consumed - first.consumed) * 1000) / span;
  }
}
