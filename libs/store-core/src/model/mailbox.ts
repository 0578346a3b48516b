import type { StoreError } from '../errors/domain-errors';
import type { Id128 } from './ids';

/** The Kafka partition of the dispatch topic (shard) and the epoch a `MailboxStore` is bound to. */
export interface ShardEpoch {
  /** 0 … 65 535. */
  readonly shard: number;
  /** 0 … 65 535 (16 bits of the mailbox seq). */
  readonly epoch: number;
}

/** Explicit mailbox retention parameters (constructor parameters; no hidden defaults). */
export interface MailboxGcConfig {
  /** Entry lifetime after the end of its creation day (ms). Fixes every entry's absolute expiry. */
  readonly entryRetentionMs: bigint;
  /**
   * How long a dispatch id is remembered for duplicate detection, counted from its record's
   * `createdAt` (ms). Must cover the window in which a duplicate can still arrive: the messages
   * topic's retention (consumer replays) and the writer's republication window.
   */
  readonly dispatchDedupeMs: bigint;
}

/** One event of a mailbox entry. Events of one entry share its mailbox seq. */
export interface MailboxEvent {
  /** Position of the event inside its group (u32). A repeated ordinal at one seq fails closed. */
  readonly ordinal: number;
  readonly eventId: Id128;
  /** Opaque event payload (for message events: the canonical `MessageRecord` bytes). */
  readonly payload: Uint8Array;
}

/** The value of a Kafka `qim.mailbox.dispatch` record: one message's fan-out to the recipients of one shard. */
export interface DispatchRecord {
  readonly dispatchId: Id128;
  readonly tenantId: Id128;
  /** Dispatch-topic partition (0 … 65 535). */
  readonly shard: number;
  readonly messageId: Id128;
  readonly conversationId: Id128;
  /** Conversation seq of the message (u64, ≥ 1). */
  readonly seq: bigint;
  /** ms since the Unix epoch (u64); fixes the mailbox entries' day bucket. */
  readonly createdAt: bigint;
  /** Recipients in this shard, sorted ascending, unique. */
  readonly recipients: readonly Id128[];
  /** The event group each recipient receives, in canonical `(ordinal, eventId)` order, at least one. */
  readonly events: readonly MailboxEvent[];
}

/** What a writer hands to `appendBatch` / `appendChunk`: one complete event group for one user and seq. */
export interface MailboxEntryInput {
  readonly tenantId: Id128;
  readonly userId: Id128;
  readonly mailboxSeq: bigint;
  /** ms since epoch; fixes the entry's day bucket and absolute expiry. */
  readonly createdAt: bigint;
  readonly events: readonly MailboxEvent[];
}

/** A stored entry: the whole group, events in canonical order `(ordinal, eventId)`, and its fixed expiry. */
export interface MailboxEntry extends MailboxEntryInput {
  /** Absolute expiry (ms since epoch), `entryExpiry(createdAt, retention)`; never renewed. */
  readonly expiresAt: bigint;
}

/** Result of `rangeScan`: entries in ascending seq and the cursor to continue from. */
export interface RangeScanPage {
  readonly entries: readonly MailboxEntry[];
  /**
   * The cursor after this page. Equals `upTo` only when every entry in `(after, upTo]` is proven
   * delivered (no more, no hole); otherwise the seq of the last entry returned — or of the last one
   * read past when it was left out as expired (a store that still holds expired entries).
   */
  readonly next: bigint;
  /** True when entries in `(next, upTo]` may remain. */
  readonly hasMore: boolean;
}

/** One read of `MailboxStore.rangeScanMany`: the arguments of one `rangeScan`. */
export interface RangeScanRead {
  readonly tenantId: Id128;
  readonly userId: Id128;
  /** Exclusive cursor. */
  readonly after: bigint;
  readonly upTo: bigint;
  readonly limit: number;
  readonly maxBytes?: number;
}

/** The answer to one read of `rangeScanMany`: the page `rangeScan` would return, or the store error it would throw. */
export type RangeScanOutcome = { readonly ok: true; readonly page: RangeScanPage } | { readonly ok: false; readonly error: StoreError };

/** One record of a dispatch page: its Kafka offset and decoded value. */
export interface DispatchPageRecord {
  readonly offset: bigint;
  readonly record: DispatchRecord;
}

/** A batch of consecutive dispatch-topic records of one shard, `[fromOffset, toOffset]` inclusive. */
export interface DispatchPage {
  readonly fromOffset: bigint;
  readonly toOffset: bigint;
  /** Strictly ascending offsets inside the range; offsets without a record carry nothing. */
  readonly records: readonly DispatchPageRecord[];
}

/** What `applyPage` did with one record. */
export interface DispatchOutcome {
  readonly offset: bigint;
  readonly dispatchId: Id128;
  /**
   * `applied`: entries written at this offset's seq; `duplicate`: already applied at `canonicalOffset`;
   * `conflict`: same id, other content (nothing written).
   */
  readonly outcome: 'applied' | 'duplicate' | 'conflict';
  /** The lowest offset of this dispatch id (its entries live at that offset's mailbox seq). */
  readonly canonicalOffset: bigint;
}

/** Result of `applyPage`. */
export interface PageReport {
  /** The frontier after the page (≥ `toOffset` unless the store already had more). */
  readonly frontier: bigint;
  /** False when the page lay entirely at or below the frontier and nothing was written. */
  readonly wrote: boolean;
  /** One per record of the page, in offset order (`resolvePage`); empty when `wrote` is false. */
  readonly outcomes: readonly DispatchOutcome[];
  /** Entries written live / recorded as already expired (proof only). */
  readonly entriesWritten: number;
  readonly entriesExpired: number;
}

/** The shard frontier of a `ShardEpoch`. */
export interface ShardFrontier {
  /** Highest offset up to which every record of the shard's partition is applied; null: none yet. */
  readonly offset: bigint | null;
}

/** Counts of a bounded housekeeping pass. */
export interface HousekeepingReport {
  readonly examined: number;
  readonly reclaimed: number;
  /** True when the limit stopped the pass before it ran out of candidates. */
  readonly more: boolean;
}
