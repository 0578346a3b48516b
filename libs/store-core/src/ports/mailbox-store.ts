import type { Id128 } from '../model/ids';
import type { DispatchPage, MailboxEntryInput, PageReport, RangeScanOutcome, RangeScanPage, RangeScanRead, ShardEpoch, ShardFrontier } from '../model/mailbox';

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
 * Per-user mailboxes of one `ShardEpoch`, fed by write diffusion from one dispatch-topic partition,
 * and the shard frontier that proves what readers may see (ADR-0022, `docs/adr/0022-shard-frontier.md`).
 * Every seq given to an operation must belong to the store's epoch (`EpochMismatchError`). Nothing is
 * deleted by range: entries vanish by their absolute expiry and the V4 retention proof makes every such
 * hole visible as `CursorExpiredError`.
 */
export interface MailboxStore {
  readonly shardEpoch: ShardEpoch;
  readonly capabilities: MailboxStoreCapabilities;

  /**
   * Writes complete event groups (one entry per `(user, mailboxSeq)`), events normalised to
   * `(ordinal, eventId)`; a repeated ordinal in one group, or two groups for one `(user, seq)` in one
   * call → `InvalidInputError`, nothing written. Per entry: bucket proof (its max seq only ever rises)
   * → the user's retention meta when its ledger must change (first entry of a day, an expired day to
   * consume) → entry. A replay overwrites with the same value and never renews the expiry. An already
   * expired entry records only its proof and gap, never the entry.
   */
  appendBatch(entries: readonly MailboxEntryInput[]): Promise<AppendReport>;

  /**
   * Entries of `(tenant, user)` with `after < seq ≤ upTo`, ascending, cut on seq boundaries by
   * `cutBatch(limit, maxBytes)` (limit counts events, maxBytes event payload bytes; the first entry
   * is always whole, after it the cut is strict). `after > upTo` → `{entries: [], next: after}`.
   * `after < max(trim, expiredGapBoundary)` → `CursorExpiredError`. Ledger/proof damage →
   * `CorruptEntryError`. Both ends are epoch-checked.
   *
   * The budgets bound what the store READS, not only what it returns: it stops reading entries once
   * the page is cut, so a page costs at most its budget plus the one entry that did not fit (never
   * `limit` whole entries when `maxBytes` is small).
   */
  rangeScan(tenantId: Id128, userId: Id128, after: bigint, upTo: bigint, limit: number, maxBytes?: number): Promise<RangeScanPage>;

  /**
   * Several users' `rangeScan`s in one call (the long polls one frontier advance woke, ADR-0041):
   * outcome `i` is exactly what `rangeScan(reads[i]…)` would have answered at some moment during the
   * call — its page (same cursor, same cut, same budgets), or the `StoreError` it would have thrown
   * (`CursorExpiredError`, `EpochMismatchError`, `InvalidInputError`, `CorruptEntryError`, …), one
   * read's error never failing another. The store reads them together (Redis: one pipelined write of
   * one-tag scripts; Scylla: concurrent statements). A failure of the store itself may reject the
   * whole call. No reads → no outcome and nothing sent.
   */
  rangeScanMany(reads: readonly RangeScanRead[]): Promise<RangeScanOutcome[]>;

  /** Monotonically raises the user's trim to `seq` (a lower or equal `seq` is a no-op). */
  truncateBefore(tenantId: Id128, userId: Id128, seq: bigint): Promise<void>;

  /**
   * Applies one page of consecutive dispatch-topic records `[fromOffset, toOffset]` of this store's
   * shard, then moves the shard frontier to `toOffset`. No LWT and no lock: every write is idempotent
   * and ordered by a write timestamp derived from the offset, so a replay or a zombie worker converges
   * to the same state and the frontier never moves backwards.
   *
   * - Page shape: `fromOffset ≤ toOffset`, records strictly ascending inside the range, every record of
   *   this shard, else `InvalidInputError` and nothing written. Offsets of the range without a record
   *   (dead-lettered) carry nothing but are covered by the frontier.
   * - Contiguity: with a frontier `F`, `fromOffset > F + 1` → `FrontierGapError`, nothing written (a hole
   *   is never skipped). A page entirely at or below `F` is already applied: nothing is written.
   * - Duplicates: a dispatch id seen at several offsets (in this page or earlier, within
   *   `dispatchDedupeMs` of its `createdAt`) gets its entries once, at the mailbox seq of its LOWEST
   *   offset; later sights are `duplicate`. A later sight with other content is `conflict` (nothing
   *   written for it). Both still move the frontier.
   * - Order of durability: every entry (with its retention proof) of the page, then the frontier. A
   *   crash in between leaves entries above the frontier, invisible to `frontier()` readers, rewritten
   *   with the same bytes when the page is applied again.
   */
  applyPage(page: DispatchPage): Promise<PageReport>;

  /** The shard frontier: the highest offset up to which every record is applied (null: none yet). */
  frontier(): Promise<ShardFrontier>;

  /** Releases connections. */
  close(): Promise<void>;
}
