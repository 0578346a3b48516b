import { InvalidInputError, StoreError } from '@qim/store-core';

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
}

interface Waiter {
  readonly share: number;
  readonly admit: () => void;
  readonly timer: ReturnType<typeof setTimeout>;
}

/**
 * Bounds the bytes of pages (sync pages, history pages) one process reads and holds at once, so no
 * set of callers can run it out of memory: a read takes a share of `totalBytes` — the byte budget of
 * its page (`max_bytes`), at most the whole budget — for as long as it runs, and waits in arrival
 * order while the shares of the reads in flight leave no room. A read that cannot get its share
 * within `waitMs` is refused with `ReadBudgetSpentError` (nothing was read). The store bounds each
 * page by its budget plus the one entry that ends it, so the memory held is about `totalBytes` plus
 * one entry per read in flight.
 */
export class ReadBudget {
  private inUse = 0;
  private readonly queue: Waiter[] = [];
  private readonly retryAfterSeconds: number;

  constructor(private readonly opts: ReadBudgetOptions) {
    if (!Number.isInteger(opts.totalBytes) || opts.totalBytes < 1)
      throw new InvalidInputError(`read budget: totalBytes must be an integer ≥ 1: ${opts.totalBytes}`);
    if (!Number.isInteger(opts.waitMs) || opts.waitMs < 0) throw new InvalidInputError(`read budget: waitMs must be an integer ≥ 0: ${opts.waitMs}`);
    this.retryAfterSeconds = opts.retryAfterSeconds ?? 1;
  }

  /** Bytes of the shares held now. */
  get inUseBytes(): number {
    return this.inUse;
  }

  /** Runs `read` holding a share of `bytes` (clamped to 1 … `totalBytes`); refused when none is free within the wait. */
  async run<T>(bytes: number, read: () => Promise<T>): Promise<T> {
    const share = Math.min(this.opts.totalBytes, Math.max(1, Math.ceil(bytes)));
    await this.acquire(share);
    try {
      return await read();
    } finally {
      this.inUse -= share;
      this.admitWaiting();
    }
  }

  private acquire(share: number): Promise<void> {
    if (this.queue.length === 0 && this.inUse + share <= this.opts.totalBytes) {
      this.inUse += share;
      return Promise.resolve();
    }
    if (this.opts.waitMs === 0) return Promise.reject(this.refusal());
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        share,
        admit: resolve,
        timer: setTimeout(() => {
          const at = this.queue.indexOf(waiter);
          if (at >= 0) this.queue.splice(at, 1);
          reject(this.refusal());
          // The refused read may have been the head that held the others back.
          this.admitWaiting();
        }, this.opts.waitMs),
      };
      this.queue.push(waiter);
    });
  }

  /** Admits waiting reads in arrival order while the head's share fits. */
  private admitWaiting(): void {
    for (let head = this.queue[0]; head !== undefined && this.inUse + head.share <= this.opts.totalBytes; head = this.queue[0]) {
      this.queue.shift();
      clearTimeout(head.timer);
      this.inUse += head.share;
      head.admit();
    }
  }

  private refusal(): ReadBudgetSpentError {
    this.opts.onRefused?.();
    return new ReadBudgetSpentError(`the read budget of this process (${this.opts.totalBytes} bytes) is in use; retry shortly`, this.retryAfterSeconds);
  }
}
