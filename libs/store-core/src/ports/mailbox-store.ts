import type { Id128 } from '../model/ids';
import type {
  DispatchManifest,
  DispatchProgress,
  DispatchReceipt,
  HousekeepingReport,
  LaneWatermark,
  MailboxEntryInput,
  RangeScanPage,
  ShardEpoch,
} from '../model/mailbox';

export interface AppendReport {
  /** Entries written live (with their fixed absolute TTL). */
  readonly written: number;
  /** Entries whose absolute expiry had already passed: only the bucket proof and gap boundary were recorded. */
  readonly expired: number;
}

export interface MailboxStoreCapabilities {
  /** True when time comes from an injected `Clock` (Memory, Redis); false when real server TTLs rule (Scylla). */
  readonly injectableClock: boolean;
}

/**
 * Per-user mailboxes of one `ShardEpoch`, fed by write diffusion, plus the dispatch bookkeeping that
 * proves lane watermarks. Every seq given to an operation must belong to the store's epoch
 * (`EpochMismatchError`). Nothing is deleted by range: entries vanish by their absolute expiry and
 * the V4 retention proof makes every such hole visible as `CursorExpiredError`.
 */
export interface MailboxStore {
  readonly shardEpoch: ShardEpoch;
  readonly capabilities: MailboxStoreCapabilities;

  /**
   * Writes complete event groups (one entry per `(user, mailboxSeq)`), events normalised to
   * `(ordinal, eventId)`; a repeated ordinal in one group → `InvalidInputError`, nothing written.
   * Per entry: bucket proof → retention meta (consume expired ledger days into the gap boundary,
   * register/raise today, bump generation) → entry. A replay overwrites with the same value and never
   * renews the expiry. An already expired entry records only its proof and gap, never the entry.
   */
  appendBatch(entries: readonly MailboxEntryInput[]): Promise<AppendReport>;

  /**
   * Entries of `(tenant, user)` with `after < seq ≤ upTo`, ascending, cut on seq boundaries by
   * `cutBatch(limit)` (limit counts events; the first entry is always whole). `after > upTo` →
   * `{entries: [], next: after}`. `after < max(trim, expiredGapBoundary)` → `CursorExpiredError`.
   * Ledger/proof damage → `CorruptEntryError`. Both ends are epoch-checked.
   */
  rangeScan(tenantId: Id128, userId: Id128, after: bigint, upTo: bigint, limit: number): Promise<RangeScanPage>;

  /** Monotonically raises the user's trim to `seq` (a lower or equal `seq` is a no-op). */
  truncateBefore(tenantId: Id128, userId: Id128, seq: bigint): Promise<void>;

  /**
   * Records an observation of a dispatch record at `observedOffset`. First sight fixes the receipt
   * (canonical offset and mailbox seq). Later sights (any offset) reuse it, raise `maxObservedOffset`
   * monotonically and refresh `lastSeenAt`; a different digest or manifest → `DispatchConflictError`.
   * Every observation is indexed, then a source row is written in all 64 lanes. An offset already
   * claimed by another dispatch → `DispatchConflictError`. GC marker present → `GcNotSafeError`.
   */
  beginDispatch(dispatchId: Id128, observedOffset: bigint, manifest: DispatchManifest, digest: Uint8Array): Promise<DispatchReceipt>;

  /**
   * Writes the entries of one declared chunk (each user's complete group at `receipt.mailboxSeq`).
   * Receipt must match the stored one; the chunk must be declared in the manifest for that lane and
   * `entries` must be exactly its users (`InvalidInputError`/`ConflictError` otherwise).
   */
  appendChunk(receipt: DispatchReceipt, lane: number, chunkId: number, entries: readonly MailboxEntryInput[]): Promise<AppendReport>;

  /** Writes the durable completion fact of a declared chunk (idempotent). Writes no user entry. */
  markChunkCompleted(receipt: DispatchReceipt, lane: number, chunkId: number): Promise<void>;

  /** Reads the completion fact of a chunk. */
  chunkCompleted(dispatchId: Id128, lane: number, chunkId: number): Promise<boolean>;

  /** Manifest + merged lane completion; null when unknown; half-damaged → `CorruptEntryError`. */
  dispatchProgress(dispatchId: Id128): Promise<DispatchProgress | null>;

  /**
   * The lane's `{w, floor}` after verification: W recomputed from completion facts above the floor
   * must equal the stored W and neither may be below the floor, else `WatermarkNotReadyError`.
   */
  laneWatermark(lane: number): Promise<LaneWatermark>;

  /**
   * Moves the lane's W from exactly `expectedPrev` to `offset`. `offset` must be the next recorded
   * source offset of the lane (`expectedPrev + 1`; or, from null, the lowest recorded one) and every
   * chunk of that lane of the dispatch at `offset` must be complete. W already ≥ offset → idempotent
   * (returns current). W ≠ expectedPrev → `WatermarkConflictError`; missing source offset (hole) or
   * incomplete chunks → `WatermarkStalledError`; GC marker → `GcNotSafeError`.
   */
  advanceWatermark(lane: number, expectedPrev: bigint | null, offset: bigint): Promise<LaneWatermark>;

  /** CAS of the lane floor from `expectedFloor` to `newFloor`; requires `newFloor ≤ W` and `newFloor ≥ floor`. */
  advanceFloor(lane: number, expectedFloor: bigint | null, newFloor: bigint): Promise<LaneWatermark>;

  /**
   * Reclaims bookkeeping of completed dispatches with `lastSeenAt ≤ cutoffMs` whose every lane has W and
   * floor ≥ `maxObservedOffset`: fixes one deadline (`now + dispatchGcDelayMs`) once, never renews it,
   * phases null → 1 → 2, resumable after a crash at any step. At most `limit` dispatches per call.
   */
  gcCompletedDispatches(cutoffMs: bigint, limit: number): Promise<HousekeepingReport>;

  /** Releases connections. */
  close(): Promise<void>;
}
