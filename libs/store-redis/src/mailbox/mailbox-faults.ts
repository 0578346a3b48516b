/**
 * Simulated crash points inside `applyPage` (a test seam: production passes none). The store throws
 * `SimulatedCrashError` at that point, leaving exactly what a kill -9 there would leave. Same shape
 * as the contract harness's `MailboxFaults`.
 */
export interface MailboxFaults {
  /** Crash after this many entry writes of the page have been acknowledged (frontier not written). */
  readonly crashAfterEntries?: number;
  /** Crash after the dispatch index and every entry of the page, before the frontier write. */
  readonly crashBeforeFrontier?: boolean;
}

/** Thrown by a `MailboxFaults` crash point (never by a store without faults). */
export class SimulatedCrashError extends Error {
  override readonly name = 'SimulatedCrashError';
}
