/** Executions of one named statement. */
export interface StatementCount {
  readonly name: string;
  /** True for conditional (Paxos, LOCAL_SERIAL) statements. */
  readonly lwt: boolean;
  readonly count: number;
}

/**
 * Counts statement executions by name (`table.action`) and the requests the store has in flight.
 * The store reports every execution here (each statement of a batch by its own name), so a
 * benchmark or a test can state how many LWTs each step of an operation costs and how many requests
 * were outstanding at most. One process only; `reset()` starts a new measurement.
 */
export class StatementCounter {
  private readonly counts = new Map<string, { lwt: boolean; count: number }>();
  private inFlight = 0;
  private peak = 0;
  private sent = 0;
  /** Deepest chain of requests settled since the last reset (see `sequentialRounds`). */
  private deepest = 0;

  record(name: string, lwt: boolean): void {
    const c = this.counts.get(name);
    if (c) c.count += 1;
    else this.counts.set(name, { lwt, count: 1 });
  }

  /**
   * A request (one statement or one batch) was handed to the driver. Returns its depth: one more
   * than the deepest request settled so far (it may have waited for that one), to be given back
   * to `settled`.
   */
  started(): number {
    this.sent += 1;
    this.inFlight += 1;
    this.peak = Math.max(this.peak, this.inFlight);
    return this.deepest + 1;
  }

  /** A request handed to the driver has settled (answered or failed); `depth` is what `started` returned. */
  settled(depth = 0): void {
    this.inFlight -= 1;
    if (depth > this.deepest) this.deepest = depth;
  }

  /**
   * Round trips waited for one after another since the last reset: the longest chain of requests
   * each started after the previous one settled (requests sent together count once). Meaningful
   * for one operation at a time (a test, a single commit); under concurrent load it only grows.
   */
  get sequentialRounds(): number {
    return this.deepest;
  }

  /** Highest number of requests outstanding at once since the last reset. */
  get peakInFlight(): number {
    return this.peak;
  }

  /** Requests handed to the driver and not settled yet. */
  get requestsInFlight(): number {
    return this.inFlight;
  }

  /** Requests sent since the last reset (a batch counts once). */
  get requests(): number {
    return this.sent;
  }

  /** All counts, sorted by name. */
  snapshot(): StatementCount[] {
    return [...this.counts.entries()].map(([name, c]) => ({ name, lwt: c.lwt, count: c.count })).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Total LWT executions whose name starts with `prefix` (all when omitted). */
  lwtCount(prefix = ''): number {
    return this.snapshot()
      .filter((c) => c.lwt && c.name.startsWith(prefix))
      .reduce((n, c) => n + c.count, 0);
  }

  /** Total executions of statements whose name starts with `prefix`. */
  count(prefix = ''): number {
    return this.snapshot()
      .filter((c) => c.name.startsWith(prefix))
      .reduce((n, c) => n + c.count, 0);
  }

  reset(): void {
    this.counts.clear();
    this.peak = this.inFlight;
    this.sent = 0;
    this.deepest = 0;
  }
}
