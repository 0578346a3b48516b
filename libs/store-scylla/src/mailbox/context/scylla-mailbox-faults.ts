/**
 * Simulated crash points inside `applyPage` — the test seam the contract harness passes
 * (structurally the contract's `MailboxFaults`, plus a delay hook for zombie tests). Production
 * passes none. A crash throws `SimulatedCrashError` at that point and leaves exactly what a kill -9
 * there would leave: acknowledged writes stay, nothing after the point is sent.
 */
export interface ScyllaMailboxFaults {
  /** Crash once this many entry writes of the page have been acknowledged (frontier not written). */
  readonly crashAfterEntries?: number;
  /** Crash after the dispatch index and every entry of the page, before the frontier write. */
  readonly crashBeforeFrontier?: boolean;
  /** Awaited right before the frontier write (a slow zombie: its write lands after newer ones). */
  readonly beforeFrontierWrite?: () => Promise<void>;
}

/** The error a simulated crash point throws. */
export class SimulatedCrashError extends Error {
  override readonly name = 'SimulatedCrashError';
}
