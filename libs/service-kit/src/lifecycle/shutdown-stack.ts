/** A named closing step. */
export interface Closer {
  readonly name: string;
  close(): Promise<void>;
}

/**
 * Resources in the order they were opened; `closeAll` closes them in reverse (consumers before
 * producers before Redis before Cassandra), each bounded by a deadline, continuing past failures
 * and reporting them.
 */
export class ShutdownStack {
  private readonly closers: Closer[] = [];
  private closing: Promise<string[]> | null = null;

  push(name: string, close: () => Promise<void>): void {
    this.closers.push({ name, close });
  }

  /** Closes everything once (later calls return the same result): the names of steps that failed. */
  closeAll(stepTimeoutMs: number, log?: (msg: string, err?: unknown) => void): Promise<string[]> {
    this.closing ??= (async () => {
      const failed: string[] = [];
      for (const c of [...this.closers].reverse()) {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            c.close(),
            new Promise((_, reject) => {
              timer = setTimeout(() => reject(new Error(`timed out after ${stepTimeoutMs} ms`)), stepTimeoutMs);
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
