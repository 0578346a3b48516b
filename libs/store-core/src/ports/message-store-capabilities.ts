/** Differences between backends that callers must know (never `if (backend === …)`). */
export interface MessageStoreCapabilities {
  /** True when time comes from an injected `Clock` (Memory, Redis); false when the server's TTLs rule (Scylla). */
  readonly injectableClock: boolean;
  /**
   * True when expired facts (auxiliary commit facts, expired Ephemeral history) stay stored until
   * `gcCommittedAuxiliary` / `gcExpiredHistory` reclaim them, so a service must run those passes on
   * a schedule (Memory, Redis); false when the server's TTLs remove them (Scylla).
   */
  readonly needsHousekeeping: boolean;
}
