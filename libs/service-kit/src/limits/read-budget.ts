import { InvalidInputError, StoreError } from '@qim/store-core';
import type { ServiceMetrics } from '../metrics/service-metrics';

/** The process's read budget stayed spent for the whole wait: retry after `retryAfterSeconds` (503 + `Retry-After`). */
export class ReadBudgetSpentError extends StoreError {
  readonly code = 'UNAVAILABLE' as const;
  readonly publicMessage = 'too many large pages are being read on this instance; retry after the Retry-After seconds';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

export interface ReadBudgetOptions {
  /** Bytes of pages this process may hold in flight at once (`QIM_READ_BUDGET_BYTES`). */
  readonly totalBytes: number;
  /** Most time a read waits for its share before `ReadBudgetSpentError` (ms, `QIM_READ_BUDGET_WAIT_MS`; 0: no wait). */
  readonly waitMs: number;
  /** `Retry-After` of a refusal (s); default 1. */
  readonly retryAfterSeconds?: number;
  /** Called on each refusal (a metric). */
  readonly onRefused?: () => void;
  /**
   * The smallest share worth a page (bytes, default 64 KiB, never more than the page asks): a read
   * whose whole share is not free takes the free part when it is at least this, and reads a shorter
   * page, instead of waiting or being refused.
   */
  readonly minShareBytes?: number;
  /** Called when a read runs with less than its page asked for (a metric). */
  readonly onShrunk?: () => void;
}

/** The default smallest share: 1/16 of the smallest budget the configuration allows (1 MiB). */
export const READ_BUDGET_MIN_SHARE_BYTES = 64 * 1024;

interface Waiter {
  readonly wanted: number;
  readonly floor: number;
  readonly admit: (granted: number) => void;
  readonly timer: ReturnType<typeof setTimeout>;
}

/**
 * Bounds the bytes of pages (sync pages, history pages) one process reads and holds at once, so no
 * set of callers can run it out of memory: a read takes a share of `totalBytes` — the byte budget of
 * its page (`max_bytes`), at most the whole budget — for as long as it runs. When that much is not
 * free, it takes what is free if that is at least the smallest share (`minShareBytes`) and reads a
 * shorter page with it (the page's `has_more` and cursor carry on); with less free, it waits in
 * arrival order. A read that cannot get even the smallest share within `waitMs` is refused with
 * `ReadBudgetSpentError` (nothing was read). The store bounds each
 * page by its budget plus the one entry that ends it, so the memory held is about `totalBytes` plus
 * one entry per read in flight.
 */
export class ReadBudget {
  private inUse = 0;
  private readonly queue: Waiter[] = [];
  private readonly retryAfterSeconds: number;
  private readonly minShare: number;

  constructor(private readonly opts: ReadBudgetOptions) {
    if (!Number.isInteger(opts.totalBytes) || opts.totalBytes < 1)
      throw new InvalidInputError(`read budget: totalBytes must be an integer ≥ 1: ${opts.totalBytes}`);
    if (!Number.isInteger(opts.waitMs) || opts.waitMs < 0) throw new InvalidInputError(`read budget: waitMs must be an integer ≥ 0: ${opts.waitMs}`);
    this.retryAfterSeconds = opts.retryAfterSeconds ?? 1;
    this.minShare = opts.minShareBytes ?? READ_BUDGET_MIN_SHARE_BYTES;
    if (!Number.isInteger(this.minShare) || this.minShare < 1)
      throw new InvalidInputError(`read budget: minShareBytes must be an integer ≥ 1: ${opts.minShareBytes}`);
  }

  /** Bytes of the shares held now. */
  get inUseBytes(): number {
    return this.inUse;
  }

  /**
   * Runs `read` holding a share of `bytes` (clamped to 1 … `totalBytes`), or of the smaller free part
   * when that is at least the smallest share; `read` is given the bytes granted and must read no more
   * than that (its page's byte budget). Refused when not even the smallest share frees within the wait.
   */
  async run<T>(bytes: number, read: (grantedBytes: number) => Promise<T>): Promise<T> {
    const wanted = Math.min(this.opts.totalBytes, Math.max(1, Math.ceil(bytes)));
    const share = await this.acquire(wanted, Math.min(wanted, this.minShare));
    if (share < wanted) this.opts.onShrunk?.();
    try {
      return await read(share);
    } finally {
      this.inUse -= share;
      this.admitWaiting();
    }
  }

  /**
   * The share a read gets now: all it wants (at most `cap`), else the free part when it reaches
   * `floor`; null: none.
   */
  private grant(wanted: number, floor: number, cap = Number.POSITIVE_INFINITY): number | null {
    const want = Math.min(wanted, cap);
    const free = this.opts.totalBytes - this.inUse;
    if (free >= want) return want;
    return free >= floor ? free : null;
  }

  private acquire(wanted: number, floor: number): Promise<number> {
    const now = this.queue.length === 0 ? this.grant(wanted, floor) : null;
    if (now !== null) {
      this.inUse += now;
      return Promise.resolve(now);
    }
    if (this.opts.waitMs === 0) return Promise.reject(this.refusal());
    return new Promise<number>((resolve, reject) => {
      const waiter: Waiter = {
        wanted,
        floor,
        admit: resolve,
        // When the loop was held up past the wait, timers run before the I/O that came in meanwhile:
        // replies that end reads and free shares may already be waiting. The refusal is decided
        // after that I/O (setImmediate runs after the loop's poll phase), so it is not taken for a
        // budget that those replies free.
        timer: setTimeout(
          () =>
            setImmediate(() => {
              const at = this.queue.indexOf(waiter);
              if (at < 0) return; // admitted meanwhile
              this.queue.splice(at, 1);
              reject(this.refusal());
              // The refused read may have been the head that held the others back.
              this.admitWaiting();
            }),
          this.opts.waitMs,
        ),
      };
      this.queue.push(waiter);
    });
  }

  /**
   * Admits waiting reads in arrival order while the head gets a share. With several waiting, the free
   * part is split evenly among them (each at least its smallest share), so a freed share admits
   * several short pages instead of one whole page after another.
   */
  private admitWaiting(): void {
    const waiting = this.queue.length;
    if (waiting === 0) return;
    const even = waiting === 1 ? Number.POSITIVE_INFINITY : Math.floor((this.opts.totalBytes - this.inUse) / waiting);
    for (let head = this.queue[0]; head !== undefined; head = this.queue[0]) {
      const granted = this.grant(head.wanted, head.floor, Math.max(head.floor, even));
      if (granted === null) return;
      this.queue.shift();
      clearTimeout(head.timer);
      this.inUse += granted;
      head.admit(granted);
    }
  }

  private refusal(): ReadBudgetSpentError {
    this.opts.onRefused?.();
    return new ReadBudgetSpentError(`the read budget of this process (${this.opts.totalBytes} bytes) is in use; retry shortly`, this.retryAfterSeconds);
  }
}

/** The process's read budget from its settings (`QIM_READ_BUDGET_*`), counting refusals and shorter pages in `metrics`. */
export function processReadBudget(settings: { readonly bytes: number; readonly waitMs: number }, metrics: ServiceMetrics): ReadBudget {
  return new ReadBudget({
    totalBytes: settings.bytes,
    waitMs: settings.waitMs,
    onRefused: () => metrics.readBudgetRefused.inc(),
    onShrunk: () => metrics.readBudgetShrunk.inc(),
  });
}
