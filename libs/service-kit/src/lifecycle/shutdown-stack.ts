/** A named closing step. */
export interface Closer {
  readonly name: string;
  close(): Promise<void>;
}

/** Bounds of one `closeAll`. */
export interface CloseBounds {
  /** Most time one step may take (ms). */
  readonly stepMs: number;
  /**
   * The global deadline (epoch ms, `Date.now()` clock): every step is also bounded by the time left
   * until it; a step reached after it is abandoned without waiting and reported failed.
   */
  readonly deadlineAt?: number;
}

/**
 * Resources in the order they were opened; `closeAll` closes them in reverse (consumers before
 * producers before Redis before Cassandra), each bounded by its step bound and the global
 * deadline, continuing past failures and reporting them.
 */
export class ShutdownStack {
  private readonly closers: Closer[] = [];
  private closing: Promise<string[]> | null = null;

  push(name: string, close: () => Promise<void>): void {
    this.closers.push({ name, close });
  }

  /**
   * Closes everything once (later calls return the same result): the names of steps that failed.
   * A number is the step bound alone (no global deadline).
   */
  closeAll(bounds: CloseBounds | number, log?: (msg: string, err?: unknown) => void): Promise<string[]> {
    const b: CloseBounds = typeof bounds === 'number' ? { stepMs: bounds } : bounds;
    this.closing ??= (async () => {
      const failed: string[] = [];
      // Set once a step ran into the global deadline: timers may fire a millisecond before the wall
      // clock reaches it, so the remaining steps are abandoned on this fact, not on a fresh clock read.
      let deadlinePassed = false;
      for (const c of [...this.closers].reverse()) {
        const untilDeadline = b.deadlineAt === undefined ? Infinity : b.deadlineAt - Date.now();
        const left = Math.min(b.stepMs, untilDeadline);
        let timer: NodeJS.Timeout | undefined;
        try {
          if (deadlinePassed || left <= 0) throw new Error('shutdown deadline passed before this step');
          const closing = c.close();
          closing.catch(() => undefined);
          await Promise.race([
            closing,
            new Promise((_, reject) => {
              timer = setTimeout(() => {
                if (untilDeadline <= b.stepMs) deadlinePassed = true;
                reject(new Error(`timed out after ${left} ms`));
              }, left);
            }),
          ]);
          log?.(`closed ${c.name}`);
        } catch (err) {
          failed.push(c.name);
          log?.(`closing ${c.name} failed`, err);
        } finally {
          clearTimeout(timer);
        }
      }
      return failed;
    })();
    return this.closing;
  }
}
