/** A held writer-id lease. */
export interface LeaseGrant {
  /** 0 … slots−1: the writer id packed into every message id this process issues. */
  readonly writerId: number;
  /** Random token proving ownership (renew/release only succeed with it). */
  readonly token: string;
  /** Highest HLC value a previous holder of this writer id recorded (0n when none). */
  readonly hlcFloor: bigint;
}

/**
 * Writer-id leases: at most one live process holds a writer id at a time (Redis in redis/scylla
 * modes; in-process in memory mode). A lost lease means the process must stop issuing message ids.
 */
export interface WriterLeaseStore {
  /** Claims the first free id in `[0, slots)` for `ttlMs`; throws `UnavailableError` when none is free. */
  acquire(slots: number, ttlMs: number, token: string): Promise<LeaseGrant>;
  /** Extends the lease and records `hlc` as the id's floor; false when the lease is no longer ours. */
  renew(grant: LeaseGrant, ttlMs: number, hlc: bigint): Promise<boolean>;
  /**
   * Takes the grant's id back after the lease was lost: succeeds when the id is free or still held
   * with the grant's token (then it is ours again for `ttlMs`) and returns the id's recorded HLC
   * floor (0n when none), which a holder in between may have raised; null while another token holds it.
   */
  reacquire(grant: LeaseGrant, ttlMs: number): Promise<bigint | null>;
  /** Gives the id back (only if still ours), recording `hlc`. */
  release(grant: LeaseGrant, hlc: bigint): Promise<void>;
  close(): Promise<void>;
}
