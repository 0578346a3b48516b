import { InvariantViolationError } from '@qim/store-core';
import type { MailboxStore, RangeScanPage, RangeScanRead } from '@qim/store-core';

interface QueuedRead {
  readonly read: RangeScanRead;
  readonly resolve: (page: RangeScanPage) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * The range scans of long polls woken together (ADR-0041): a frontier advance wakes its waiters in
 * one turn of the event loop, and each used to send its own `rangeScan`. Reads queued in one turn
 * go to each store as ONE `rangeScanMany` when the turn ends (`setImmediate`), each waiter answered
 * with its own outcome — its page, or the error its own `rangeScan` would have thrown. A turn with a
 * single read for a store sends a plain `rangeScan`. A call that fails as a whole fails each of its reads.
 */
export class WokenReads {
  private queued = new Map<MailboxStore, QueuedRead[]>();
  private scheduled = false;

  /** `onCall(reads)`: each store call sent, with the number of reads it carries. */
  constructor(private readonly onCall?: (reads: number) => void) {}

  /** What `store.rangeScan(read…)` answers, read together with the other reads of this turn. */
  read(store: MailboxStore, read: RangeScanRead): Promise<RangeScanPage> {
    return new Promise<RangeScanPage>((resolve, reject) => {
      const queue = this.queued.get(store);
      if (queue === undefined) this.queued.set(store, [{ read, resolve, reject }]);
      else queue.push({ read, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    const batches = this.queued;
    this.queued = new Map();
    this.scheduled = false;
    for (const [store, queue] of batches) {
      this.onCall?.(queue.length);
      if (queue.length === 1) {
        const [{ read: r, resolve, reject }] = queue as [QueuedRead];
        store.rangeScan(r.tenantId, r.userId, r.after, r.upTo, r.limit, r.maxBytes).then(resolve, reject);
        continue;
      }
      store.rangeScanMany(queue.map((q) => q.read)).then(
        (outcomes) => {
          queue.forEach((q, i) => {
            const o = outcomes[i];
            if (o === undefined) q.reject(new InvariantViolationError(`rangeScanMany answered ${outcomes.length} outcomes for ${queue.length} reads`));
            else if (o.ok) q.resolve(o.page);
            else q.reject(o.error);
          });
        },
        (error: unknown) => {
          for (const q of queue) q.reject(error);
        },
      );
    }
  }
}
