/**
 * Simulated crash points inside `applyPage` (a test seam: production passes none). The store throws
 * `SimulatedCrashError` at that point, leaving exactly what a kill -9 there would leave. Same shape
 * as the contract harness's `MailboxFaults` for the crash points; the pause points are this
 * backend's (they force an interleaving with another writer or a server restart).
 */
export interface MailboxFaults {
  /** Crash after this many entry writes of the page have been acknowledged (frontier not written). */
  readonly crashAfterEntries?: number;
  /** Crash after the dispatch index and every entry of the page, before the frontier write. */
  readonly crashBeforeFrontier?: boolean;
  /**
   * A pause point of the read-side inspection (not a crash): awaited after the inspector read the
   * meta and chose its gap, before its compare-and-set. A test runs a concurrent append here.
   */
  readonly beforeInspectWrite?: () => Promise<void>;
  /**
   * A pause point of `applyPage` (not a crash): awaited after every entry of the page was
   * acknowledged, before the frontier write. A test restarts or rolls back the server here.
   */
  readonly beforeFrontierWrite?: () => Promise<void>;
}

/** Thrown by a `MailboxFaults` crash point (never by a store without faults). */
export class SimulatedCrashError extends Error {
  override readonly name = 'SimulatedCrashError';
}
