/** One partition's offset to commit: the next offset to read, and the group join it was earned in. */
export interface OffsetToCommit {
  readonly partition: number;
  /** The next offset to read (`toOffset + 1` of a handled page). */
  readonly offset: bigint;
  /** The consumer's join count when the page was handled (see `OffsetCommitQueue`). */
  readonly join: number;
}

export interface OffsetCommitQueueOptions {
  /** Sends one OffsetCommit request for these partitions (resolves once the broker accepted it). */
  readonly send: (offsets: ReadonlyMap<number, bigint>) => Promise<void>;
  /** The consumer's join count now: an offset earned in an earlier join is dropped, never sent. */
  readonly currentJoin: () => number;
  /** After each accepted request, per partition in it. */
  readonly onCommitted?: (partition: number, offset: bigint) => void;
  /** After each accepted request, once. */
  readonly onSent?: () => void;
  /** A request that failed (the offsets stay uncommitted until a later page's commit carries them past). */
  readonly onFailed?: (err: unknown, offsets: ReadonlyMap<number, bigint>) => void;
}

/**
 * Offset commits off the fetch cycle (group commit of offsets). A handled page queues its offset and
 * the consumer goes on to the next page and the next fetch; one OffsetCommit request is in flight at
 * a time, and every offset queued meanwhile goes in the next one, the latest per partition. So a
 * commit never precedes its page's handling (it is queued only after), offsets of a partition are
 * sent in order and never move back within a join, and a page no longer waits for the previous
 * page's commit round trip.
 *
 * An offset earned in an earlier group join (a rebalance came between the page and its request) is
 * dropped: the partition may belong to another member now, and its committed offset is theirs to
 * move. A failed request is reported and not retried: the offsets stay behind (pages read again
 * after a restart are duplicates the handlers recognise) until a later commit carries them past.
 */
export class OffsetCommitQueue {
  private pending = new Map<number, OffsetToCommit>();
  private inFlight: Promise<void> | null = null;
  private requests = 0;

  constructor(private readonly opts: OffsetCommitQueueOptions) {}

  /** Queues a handled page's next offset; starts a request unless one is in flight. */
  add(o: OffsetToCommit): void {
    const prior = this.pending.get(o.partition);
    if (prior && prior.join === o.join && prior.offset > o.offset) return;
    this.pending.set(o.partition, o);
    if (!this.inFlight) this.inFlight = this.pump();
  }

  /** Resolves once nothing is queued or in flight (every queued offset sent or dropped). */
  async drain(): Promise<void> {
    while (this.inFlight) await this.inFlight;
  }

  /** OffsetCommit requests sent so far. */
  get requestsSent(): number {
    return this.requests;
  }

  private async pump(): Promise<void> {
    // Let the pages handled in this tick join the first request.
    await Promise.resolve();
    try {
      while (this.pending.size > 0) {
        const batch = this.pending;
        this.pending = new Map();
        const join = this.opts.currentJoin();
        const offsets = new Map<number, bigint>();
        for (const o of batch.values()) if (o.join === join) offsets.set(o.partition, o.offset);
        if (offsets.size === 0) continue;
        this.requests += 1;
        try {
          await this.opts.send(offsets);
        } catch (err) {
          this.opts.onFailed?.(err, offsets);
          continue;
        }
        this.opts.onSent?.();
        for (const [partition, offset] of offsets) this.opts.onCommitted?.(partition, offset);
      }
    } finally {
      this.inFlight = null;
    }
  }
}
