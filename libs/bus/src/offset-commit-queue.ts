/** One partition's offset to commit: the next offset to read, and the group join it was earned in. */
export interface OffsetToCommit {
  readonly partition: number;
  /** The next offset to read (`toOffset + 1` of a handled page). */
  readonly offset: bigint;
  /** The consumer's join count when the page was handled (see `OffsetCommitQueue`). */
  readonly join: number;
  /** Stored with the offset by the broker (OffsetCommit metadata), e.g. `commitPositionMetadata`. */
  readonly metadata?: string;
}

export interface OffsetCommitQueueOptions {
  /**
   * Sends one OffsetCommit request for these partitions (resolves once the broker accepted it), with
   * the metadata queued beside each offset (partitions without any are absent from `metadata`).
   */
  readonly send: (offsets: ReadonlyMap<number, bigint>, metadata: ReadonlyMap<number, string>) => Promise<void>;
  /** The consumer's join count now: an offset earned in an earlier join is dropped, never sent. */
  readonly currentJoin: () => number;
  /** After each accepted request, per partition in it. */
  readonly onCommitted?: (partition: number, offset: bigint) => void;
  /** After each accepted request, once. */
  readonly onSent?: () => void;
  /** A request that failed; its offsets are sent again (see `OffsetCommitQueue`). */
  readonly onFailed?: (err: unknown, offsets: ReadonlyMap<number, bigint>) => void;
  /** The wait before the request after the n-th consecutive failure (default 100 ms doubling, at most 5 s). */
  readonly retryDelayMs?: (failures: number) => number;
  /** Once `drain` was called: requests a failing offset gets in all before it is given up (default 3). */
  readonly drainAttempts?: number;
  /**
   * The least time from the start of one request to the start of the next (default 0: as soon as
   * the previous one ended). A request after a quieter spell goes at once; `drain` cuts a wait short.
   */
  readonly minIntervalMs?: number;
}

/** The longest wait between requests once `drain` was called. */
const DRAIN_RETRY_DELAY_MS = 200;

/** 100, 200, 400 … ms, at most 5 s. */
export function defaultCommitRetryDelayMs(failures: number): number {
  return Math.min(5_000, 100 * 2 ** Math.min(failures - 1, 6));
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
 * move. A failed request is reported and its offsets go back in the queue (unless a newer offset of
 * the same partition and join came meanwhile); the next request waits a growing delay. An idle
 * partition's last offset is so committed once the broker answers again, not left behind to be read
 * again after a restart. Once `drain` was called (the consumer is stopping), a failing offset is
 * given up after `drainAttempts` requests, so a stop ends while the broker is away (its pages are
 * then read again after the restart, duplicates the handlers recognise).
 *
 * With `minIntervalMs`, requests start at most once per interval: a busy consumer then sends a few
 * OffsetCommit requests a second instead of one per page (each costs the broker a log append), at
 * the price of re-reading up to an interval of pages after a crash — pages the handlers recognise.
 */
export class OffsetCommitQueue {
  private pending = new Map<number, OffsetToCommit>();
  private inFlight: Promise<void> | null = null;
  private requests = 0;
  private failures = 0;
  private draining = false;
  /** Requests each queued offset has been in so far, by partition (reset when a newer offset comes). */
  private attempts = new Map<number, number>();
  /** `performance.now()` when the last request started (−∞ before the first). */
  private lastStart = Number.NEGATIVE_INFINITY;
  /** Ends the interval wait early (set while waiting). */
  private wake: (() => void) | null = null;

  constructor(private readonly opts: OffsetCommitQueueOptions) {
    const interval = opts.minIntervalMs ?? 0;
    if (!Number.isFinite(interval) || interval < 0) throw new RangeError(`minIntervalMs must be a finite number ≥ 0, got ${interval}`);
  }

  /** Queues a handled page's next offset; starts a request unless one is in flight. */
  add(o: OffsetToCommit): void {
    const prior = this.pending.get(o.partition);
    if (prior && prior.join === o.join && prior.offset > o.offset) return;
    this.pending.set(o.partition, o);
    this.attempts.delete(o.partition);
    if (!this.inFlight) this.inFlight = this.pump();
  }

  /** Resolves once nothing is queued or in flight (every queued offset sent or dropped). */
  async drain(): Promise<void> {
    this.draining = true;
    this.wake?.();
    try {
      while (this.inFlight) await this.inFlight;
    } finally {
      this.draining = false;
    }
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
        await this.interval();
        const batch = this.pending;
        this.pending = new Map();
        const join = this.opts.currentJoin();
        const offsets = new Map<number, bigint>();
        const metadata = new Map<number, string>();
        for (const o of batch.values()) {
          if (o.join !== join) continue;
          offsets.set(o.partition, o.offset);
          if (o.metadata !== undefined) metadata.set(o.partition, o.metadata);
        }
        if (offsets.size === 0) continue;
        this.requests += 1;
        this.lastStart = performance.now();
        try {
          await this.opts.send(offsets, metadata);
        } catch (err) {
          this.opts.onFailed?.(err, offsets);
          await this.failed(batch, join);
          continue;
        }
        this.failures = 0;
        for (const partition of offsets.keys()) if (!this.pending.has(partition)) this.attempts.delete(partition);
        this.opts.onSent?.();
        for (const [partition, offset] of offsets) this.opts.onCommitted?.(partition, offset);
      }
    } finally {
      this.inFlight = null;
    }
  }

  /** Waits out what is left of the minimum interval since the last request started (not while draining). */
  private async interval(): Promise<void> {
    const wait = this.lastStart + (this.opts.minIntervalMs ?? 0) - performance.now();
    if (wait <= 0 || this.draining) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, wait);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
    this.wake = null;
  }

  /** Puts a failed request's offsets back (where nothing newer came) and waits before the next request. */
  private async failed(batch: ReadonlyMap<number, OffsetToCommit>, join: number): Promise<void> {
    const limit = this.opts.drainAttempts ?? 3;
    for (const o of batch.values()) {
      if (o.join !== join) continue;
      const tried = (this.attempts.get(o.partition) ?? 0) + 1;
      const newer = this.pending.get(o.partition);
      if (newer && !(newer.join === o.join && newer.offset < o.offset)) continue;
      if (this.draining && tried >= limit) {
        this.attempts.delete(o.partition);
        continue;
      }
      this.pending.set(o.partition, o);
      this.attempts.set(o.partition, tried);
    }
    this.failures += 1;
    if (this.pending.size > 0) {
      const delay = (this.opts.retryDelayMs ?? defaultCommitRetryDelayMs)(this.failures);
      // Stopping: short waits, the stop has a deadline.
      const ms = this.draining ? Math.min(delay, DRAIN_RETRY_DELAY_MS) : delay;
      if (ms > 0) await new Promise<void>((resolve) => setTimeout(resolve, ms));
      else await Promise.resolve();
    }
  }
}
