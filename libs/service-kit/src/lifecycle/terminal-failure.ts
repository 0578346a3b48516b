/**
 * A failure the process cannot recover from by itself (a writer lease that could not be
 * re-acquired in time, a consumer stopped for good): raised once, it ends the process non-zero
 * after the bounded shutdown sequence, because orchestrators restart processes, not unready pods.
 */
export class TerminalFailure {
  private first: string | null = null;
  private settle!: (reason: string) => void;
  /** Resolves with the reason of the first `raise`. */
  readonly reason: Promise<string> = new Promise((resolve) => {
    this.settle = resolve;
  });

  /** Records the failure; later calls are ignored (the first reason is the one reported). */
  raise(reason: string): void {
    if (this.first !== null) return;
    this.first = reason;
    this.settle(reason);
  }

  /** The first reason, or null while the process is healthy. */
  get raised(): string | null {
    return this.first;
  }
}
