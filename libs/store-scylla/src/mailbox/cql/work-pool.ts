/**
 * A fixed capacity of workers pulling jobs from one FIFO queue; a running job may push more jobs (a
 * record whose dispatch-index sight is resolved pushes its entries), so a page flows through without
 * a barrier between its steps. A job may weigh more than one worker (a batch of several entries
 * weighs its entries), so the capacity bounds the work in flight, not just the requests. After the first failure no new job starts — like a crash: what already
 * ran stays done, the rest is left for a retry — and `done()` rejects with that failure once the
 * running jobs have settled.
 */
export class WorkPool {
  private readonly queue: { job: () => Promise<void>; weight: number }[] = [];
  private running = 0;
  private failure: { error: unknown } | null = null;
  private settle: { resolve: () => void; reject: (e: unknown) => void } | null = null;

  constructor(private readonly workers: number) {}

  /** True once a job has failed (jobs may stop early instead of starting more work). */
  get failed(): boolean {
    return this.failure !== null;
  }

  /** Queues `job`; it starts when `weight` workers are free (a weight above the capacity counts as the whole capacity). */
  push(job: () => Promise<void>, weight = 1): void {
    this.queue.push({ job, weight: Math.max(1, Math.min(weight, this.workers)) });
    this.pump();
  }

  /** Resolves when the queue is empty and no job runs (all pushes made by jobs included). */
  done(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.settle = { resolve, reject };
      this.check();
    });
  }

  private pump(): void {
    while (this.failure === null && this.queue.length > 0 && this.running + this.queue[0]!.weight <= this.workers) {
      const { job, weight } = this.queue.shift()!;
      this.running += weight;
      void job()
        .catch((error: unknown) => {
          this.failure ??= { error };
        })
        .finally(() => {
          this.running -= weight;
          this.pump();
          this.check();
        });
    }
  }

  private check(): void {
    if (this.settle === null || this.running > 0) return;
    if (this.failure !== null) this.settle.reject(this.failure.error);
    else if (this.queue.length === 0) this.settle.resolve();
  }
}
