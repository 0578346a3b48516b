import { InvalidInputError } from '@qim/store-core';

/** Default bound on the statements one mailbox store has in flight (`QIM_MAILBOX_APPLY_CONCURRENCY`). */
export const DEFAULT_MAX_IN_FLIGHT = 64;
/** Largest accepted bound: well below the driver's 2,048 requests per connection. */
export const MAX_MAX_IN_FLIGHT = 1024;

/**
 * A counting semaphore with two FIFO queues: at most `limit` holders at once; a freed permit goes to
 * the oldest *reader* waiter first, then to the oldest *writer* waiter. Each store's `CqlRunner` takes one
 * permit per request for exactly the time the driver holds the request, so a 10,000-recipient page
 * waits for slots (backpressure) instead of overflowing the driver's per-connection queue
 * (`BusyConnectionError`), and a reader's statement (a sync's scan) waits for the next free slot,
 * never behind the page's queued writes.
 */
export class InFlightLimit {
  private active = 0;
  private peakActive = 0;
  private readonly readers: (() => void)[] = [];
  private readonly writers: (() => void)[] = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_MAX_IN_FLIGHT) {
      throw new InvalidInputError(`statements in flight must be an integer 1…${MAX_MAX_IN_FLIGHT}: ${limit}`);
    }
  }

  /** Highest number of permits held at once since construction. */
  get peak(): number {
    return this.peakActive;
  }

  /** Runs `fn` holding one permit (a `reader` waits ahead of writers); the permit is released when `fn` settles. */
  async run<T>(fn: () => Promise<T>, reader = false): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => (reader ? this.readers : this.writers).push(resolve));
    else this.active += 1;
    this.peakActive = Math.max(this.peakActive, this.active);
    try {
      return await fn();
    } finally {
      const next = this.readers.shift() ?? this.writers.shift();
      if (next) next();
      else this.active -= 1;
    }
  }
}
