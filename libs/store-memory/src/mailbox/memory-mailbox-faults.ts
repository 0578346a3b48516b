/**
 * Simulated crash points inside `applyPage` (tests only; production passes none). The store throws
 * at that point and leaves exactly what a kill -9 there would leave.
 */
export interface MemoryMailboxFaults {
  /** Crash once this many entry writes of the page are done (0: right after the dispatch index); a larger number than the page has never fires. */
  readonly crashAfterEntries?: number;
  /** Crash after the dispatch index and every entry of the page, before the frontier write. */
  readonly crashBeforeFrontier?: boolean;
}

/** Thrown by a `MemoryMailboxFaults` crash point (never by a store without faults). */
export class SimulatedCrashError extends Error {
  override readonly name = 'SimulatedCrashError';
}
