/** Executions of one named statement. */
export interface StatementCount {
  readonly name: string;
  /** True for conditional (Paxos, LOCAL_SERIAL) statements. */
  readonly lwt: boolean;
  readonly count: number;
}

/**
 * Counts statement executions by name (`table.action`). The store reports every execution here, so a
 * benchmark or a test can state how many LWTs each step of an operation costs. Not thread-shared
 * state beyond one process; `reset()` starts a new measurement.
 */
export class StatementCounter {
  private readonly counts = new Map<string, { lwt: boolean; count: number }>();

  record(name: string, lwt: boolean): void {
    const c = this.counts.get(name);
    if (c) c.count += 1;
    else this.counts.set(name, { lwt, count: 1 });
  }

  /** All counts, sorted by name. */
  snapshot(): StatementCount[] {
    return [...this.counts.entries()].map(([name, c]) => ({ name, lwt: c.lwt, count: c.count })).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Total LWT executions whose name starts with `prefix` (all when omitted). */
  lwtCount(prefix = ''): number {
    return this.snapshot().filter((c) => c.lwt && c.name.startsWith(prefix)).reduce((n, c) => n + c.count, 0);
  }

  reset(): void {
    this.counts.clear();
  }
}
