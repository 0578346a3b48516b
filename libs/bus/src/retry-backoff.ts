export interface RetryState {
  readonly attempts: number;
  readonly error: string;
  /** ms since epoch of the next try. */
  readonly retryAt: number;
}

/**
 * Per-partition retry schedule of a consumer: after the n-th consecutive failure the partition is
 * resumed after `min(maxMs, initialMs · 2^(n−1))`; a success resets it. Timers never hold the process open.
 */
export class RetryBackoff {
  private readonly states = new Map<number, RetryState & { readonly timer: NodeJS.Timeout }>();

  constructor(
    private readonly opts: { readonly initialMs: number; readonly maxMs: number },
    private readonly now: () => number = Date.now,
  ) {}

  /** Records a failure of `partition` and schedules `resume`; returns the delay (ms). */
  failed(partition: number, err: unknown, resume: () => void): number {
    const prev = this.states.get(partition);
    if (prev) clearTimeout(prev.timer);
    const attempts = (prev?.attempts ?? 0) + 1;
    const delayMs = Math.min(this.opts.maxMs, this.opts.initialMs * 2 ** Math.min(attempts - 1, 30));
    const timer = setTimeout(resume, delayMs);
    timer.unref();
    this.states.set(partition, { attempts, error: err instanceof Error ? err.message : String(err), retryAt: this.now() + delayMs, timer });
    return delayMs;
  }

  /** A page of `partition` succeeded: the next failure starts from `initialMs` again. */
  succeeded(partition: number): void {
    const s = this.states.get(partition);
    if (!s) return;
    clearTimeout(s.timer);
    this.states.delete(partition);
  }

  state(): ReadonlyMap<number, RetryState> {
    return new Map([...this.states].map(([p, { attempts, error, retryAt }]) => [p, { attempts, error, retryAt }]));
  }

  /** Cancels every pending resume (shutdown). */
  clear(): void {
    for (const s of this.states.values()) clearTimeout(s.timer);
    this.states.clear();
  }
}
