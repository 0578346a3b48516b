export interface PeriodicTaskOptions {
  readonly name: string;
  readonly intervalMs: number;
  /** Called when a run throws; the task keeps its schedule. */
  readonly onError: (err: unknown) => void;
}

/**
 * Runs `body` every `intervalMs` (measured from the end of the previous run, so runs never
 * overlap). `stop()` cancels the schedule and waits for a run in progress.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | null = null;
  private current: Promise<void> | null = null;
  private stopped = true;
  private lastOkAt: number | null = null;
  private lastError: string | null = null;

  constructor(
    private readonly body: () => Promise<void>,
    private readonly opts: PeriodicTaskOptions,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.current = this.runOnce().finally(() => {
        this.current = null;
        this.schedule();
      });
    }, this.opts.intervalMs);
    this.timer.unref();
  }

  /** One run now (also used by tests); errors go to `onError`, never out. */
  async runOnce(): Promise<void> {
    try {
      await this.body();
      this.lastOkAt = Date.now();
      this.lastError = null;
    } catch (err) {
      this.lastError = err instanceof Error ? err.message : String(err);
      this.opts.onError(err);
    }
  }

  status(): { name: string; lastOkAt: number | null; lastError: string | null } {
    return { name: this.opts.name, lastOkAt: this.lastOkAt, lastError: this.lastError };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.current;
  }
}
