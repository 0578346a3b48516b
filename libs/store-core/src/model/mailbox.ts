import type { Id128 } from './ids';

/** The Kafka partition of the dispatch topic (shard) and the epoch a `MailboxStore` is bound to. */
export interface ShardEpoch {
  /** 0 … 65 535. */
  readonly shard: number;
  /** 0 … 65 535 (16 bits of the mailbox seq). */
  readonly epoch: number;
}

/** Explicit mailbox retention and GC parameters (constructor parameters; no hidden defaults). */
export interface MailboxGcConfig {
  /** Entry lifetime after the end of its creation day (ms). Fixes every entry's absolute expiry. */
  readonly entryRetentionMs: bigint;
  /** How long after its GC marker a completed dispatch's bookkeeping rows live (ms). */
  readonly dispatchGcDelayMs: bigint;
}

export const LANE_COUNT = 64;

/** One event of a mailbox entry. Events of one entry share its mailbox seq. */
export interface MailboxEvent {
  /** Position of the event inside its group (u32). A repeated ordinal at one seq fails closed. */
  readonly ordinal: number;
  readonly eventId: Id128;
  /** Opaque event payload (for message events: the canonical `MessageRecord` bytes). */
  readonly payload: Uint8Array;
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
   * delivered (no more, no hole); otherwise the seq of the last entry returned.
   */
  readonly next: bigint;
  /** True when entries in `(next, upTo]` may remain. */
  readonly hasMore: boolean;
}

/** One chunk of a lane in a dispatch manifest. */
export interface ManifestChunk {
  /** 0-based within its lane. */
  readonly chunkId: number;
  /** Recipients, ascending, unique. */
  readonly users: readonly Id128[];
}

/** A lane's chunks in a dispatch manifest. Lanes with no recipients have no chunks (but do get a source row). */
export interface ManifestLane {
  readonly lane: number;
  readonly chunks: readonly ManifestChunk[];
}

/** The deterministic plan of one dispatch: recipients → 64 lanes → chunks of ≤ chunkSize users. */
export interface DispatchManifest {
  readonly dispatchId: Id128;
  readonly tenantId: Id128;
  readonly chunkSize: number;
  /** Exactly `LANE_COUNT` lanes, index = lane. */
  readonly lanes: readonly ManifestLane[];
}

/** The canonical answer of `beginDispatch`: fixed at first sight, reused for every later sight. */
export interface DispatchReceipt {
  readonly dispatchId: Id128;
  /** The source offset of the first sight. */
  readonly canonicalOffset: bigint;
  /** `composeMailboxSeq(epoch, canonicalOffset)`. */
  readonly mailboxSeq: bigint;
  /** 32-byte manifest digest. */
  readonly digest: Uint8Array;
}

/** Durable state of a dispatch (`dispatchProgress`). */
export interface DispatchProgress {
  readonly receipt: DispatchReceipt;
  readonly manifest: DispatchManifest;
  readonly maxObservedOffset: bigint;
  /** ms of the last `beginDispatch` sight. */
  readonly lastSeenAt: bigint;
  /** ms when the last declared chunk completed; null while incomplete. */
  readonly completedAt: bigint | null;
  /** Completed chunk ids per lane (index = lane). */
  readonly completedChunks: readonly (readonly number[])[];
  /** GC deadline (ms) once a GC marker is fixed; null before. */
  readonly gcDeadline: bigint | null;
  /** null, 1 or 2. */
  readonly gcPhase: 1 | 2 | null;
}

/** A lane's proven watermarks. `null` = nothing proven yet. */
export interface LaneWatermark {
  readonly lane: number;
  /** Highest source offset up to which every dispatch of this lane is proven complete. */
  readonly w: bigint | null;
  /** Prefix below which bookkeeping may be reclaimed; always ≤ w. */
  readonly floor: bigint | null;
}

/** Counts of a bounded housekeeping pass. */
export interface HousekeepingReport {
  readonly examined: number;
  readonly reclaimed: number;
  /** True when the limit stopped the pass before it ran out of candidates. */
  readonly more: boolean;
}
