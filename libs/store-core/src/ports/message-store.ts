import type { Id128 } from '../model/ids';
import type { HousekeepingReport } from '../model/mailbox';
import type { CommitIntent, CommitKey, CommitSnapshot, MessageRecord, Publication, SendRequest, Viewer } from '../model/message';
import type { HistoryAuthorizer } from './history-authorizer';

/** Input of `reserve`: the request plus the values a first reservation fixes (ignored on replay). */
export interface ReserveInput {
  readonly request: SendRequest;
  /** Candidate message id (unique, from the writer's id source). */
  readonly messageId: Id128;
  /** Candidate created_at (ms, from the writer's HLC). */
  readonly createdAt: bigint;
  /** Conversation members now: the snapshot kept in the intent. Sorted unique by the store. */
  readonly recipients: readonly Id128[];
}

export interface ReserveResult {
  readonly snapshot: CommitSnapshot;
  /** True when this call created the commit; false on replay (then the snapshot is the first intent's). */
  readonly created: boolean;
}

export type HistoryDirection = 'older' | 'newer';

export interface HistoryQuery {
  readonly direction: HistoryDirection;
  /** Exclusive anchor seq; null = from the newest (older) or from the oldest (newer). */
  readonly anchor: bigint | null;
  /** 1 … 1000. */
  readonly maxItems: number;
  /** ≥ 1. The first item may exceed it; after that truncation is strict. */
  readonly maxBytes: number;
}

/** One history item: the record and its canonical stored bytes (returned byte for byte). */
export interface HistoryItem {
  readonly record: MessageRecord;
  readonly bytes: Uint8Array;
}

export interface HistoryPage {
  /** In the query's direction (older: descending seq; newer: ascending). */
  readonly items: readonly HistoryItem[];
  /** True when more index rows exist in the direction after the last item. */
  readonly hasMore: boolean;
  /** Anchor for the next page (seq of the last item), or null when no item was returned. */
  readonly nextAnchor: bigint | null;
}

export interface SummaryQuery {
  readonly conversationId: Id128;
  /** Highest seq the viewer has read (u64; 0 = nothing). */
  readonly readSeq: bigint;
}

export const UNREAD_PRECISE_LIMIT = 100;

/**
 * Production lifetime of the auxiliary commit facts (commit row, recovery index entry), counted from
 * the reserve: 2 hours (seed). Replays are recognised within it; afterwards the key is free again.
 */
export const COMMIT_AUX_TTL_MS = 7_200_000n;

export interface ConversationSummary {
  readonly conversationId: Id128;
  /** Highest issued/recorded seq visible in the history index; 0 when empty. */
  readonly headSeq: bigint;
  /** The newest record (null when the conversation has none). */
  readonly last: MessageRecord | null;
  /** Unread count, capped at `UNREAD_PRECISE_LIMIT` when not precise. */
  readonly unread: number;
  /** False when more than `UNREAD_PRECISE_LIMIT` index rows follow `readSeq`. */
  readonly precise: boolean;
}

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

/**
 * Durable message facts. The backend never ACKs, publishes or fans out; `DurableMessageCommitter`
 * drives RESERVED → RECORDED → OUTBOXED → COMMITTED. Every operation is safe to retry.
 */
export interface MessageStore {
  readonly capabilities: MessageStoreCapabilities;

  /**
   * Existing commit for the request's key: identical identity bytes → the first intent and its
   * current state (`created: false`); different identity → `ConflictError`. First time: writes the
   * recovery index entry, then claims the key at the conversation in the same atomic step that
   * allocates the next seq (`SeqClaim`: concurrent or repeated identical reserves — in this process
   * or another — adopt the claim instead of allocating, so exactly one seq is spent and every caller
   * gets an equal intent; exactly one caller gets `created: true`), and stores the complete RESERVED
   * intent. A seq is never reused; only a claimant dying without a later identical reserve leaves a hole.
   */
  reserve(input: ReserveInput): Promise<ReserveResult>;

  /**
   * Stores the record and its history index row (same expiry; only `ephemeral` has one, at
   * `createdAt + ttl` however late the write — `recordExpiresAtMs` — and a record already past it is
   * never visible) and moves RESERVED → RECORDED. `intent` must equal the stored intent and `record`
   * must equal `recordFromIntent(intent)` (coordinates included), else `ConflictError`; another
   * message's record already at the seq (a seq handed out twice after a lost increment) →
   * `ConflictError`, nothing written, the commit stays RESERVED. Already RECORDED or later with the
   * same intent → returns the current snapshot unchanged. Unknown key → `NotFoundError`.
   */
  putRecord(intent: CommitIntent, record: MessageRecord): Promise<CommitSnapshot>;

  /**
   * RECORDED → OUTBOXED, storing `publication` in the intent. `messageId` must be the intent's
   * (`ConflictError` otherwise). Already OUTBOXED/COMMITTED → current snapshot (first publication
   * kept). From RESERVED → `InvalidStateError`. Unknown key → `NotFoundError`.
   */
  markOutboxPublished(key: CommitKey, messageId: Id128, publication: Publication): Promise<CommitSnapshot>;

  /** OUTBOXED → COMMITTED (coordinates kept). Already COMMITTED → same snapshot. Earlier states → `InvalidStateError`. */
  markCommitted(key: CommitKey): Promise<CommitSnapshot>;

  /**
   * The committer's step after a successful publish: RECORDED → OUTBOXED → COMMITTED as one atomic
   * step, storing `publication` in the intent (a commit found OUTBOXED moves to COMMITTED keeping its
   * first publication). `intent` must equal the stored intent, the publication aside (`ConflictError`
   * otherwise). Already COMMITTED → current snapshot. RESERVED → `InvalidStateError`. Unknown key →
   * `NotFoundError`. Same outcome as `markOutboxPublished` followed by `markCommitted`, in one write.
   */
  markPublishedAndCommitted(intent: CommitIntent, publication: Publication): Promise<CommitSnapshot>;

  /** The stored commit, decoded; null when absent (or expired). Undecodable → `CorruptEntryError`. */
  loadCommit(key: CommitKey): Promise<CommitSnapshot | null>;

  /** Like `loadCommit` for the request's key, re-comparing the identity (`ConflictError` when it differs). */
  loadCommitForRequest(request: SendRequest): Promise<CommitSnapshot | null>;

  /**
   * Complete RESERVED/RECORDED/OUTBOXED commits with `createdAt < cutoffMs`, oldest first, at most
   * `maxItems`, no duplicates; terminal and vanished commits are filtered out.
   */
  scanRecoverableCommits(cutoffMs: bigint, maxItems: number): Promise<CommitSnapshot[]>;

  /**
   * Bounded housekeeping of expired auxiliary commit facts (commit row, recovery index entries, seq
   * claim), counted per commit: `examined` = commits (at most `limit`) whose facts have expired
   * (aux expiry ≤ `nowMs`) and are still held, `reclaimed` = those whose facts this pass removed.
   * Facts that have not expired are never counted. A backend whose server TTLs remove expired facts
   * by themselves (`injectableClock: false`) finds none: `{ examined: 0, reclaimed: 0, more: false }`.
   */
  gcCommittedAuxiliary(nowMs: bigint, limit: number): Promise<HousekeepingReport>;

  /**
   * Bounded housekeeping of expired Ephemeral history, counted per message: `examined` = messages (at
   * most `limit`) whose record has expired and is still held, `reclaimed` = those whose record and
   * index row this pass removed. Server-TTL backends (`injectableClock: false`) find none.
   */
  gcExpiredHistory(nowMs: bigint, limit: number): Promise<HousekeepingReport>;

  /**
   * A directional page of history. Calls `authorizer` before any read (deny → `ForbiddenError`).
   * Missing record, undecodable record or disagreeing coordinates → `CorruptEntryError`; an
   * Ephemeral record that expired between index read and record read is not corruption (it is left out).
   */
  historyPage(authorizer: HistoryAuthorizer, viewer: Viewer, conversationId: Id128, query: HistoryQuery): Promise<HistoryPage>;

  /**
   * Per conversation: head seq, last record, unread = records with seq > readSeq, sender ≠ viewer,
   * kind normal|edited, not control; reads at most `UNREAD_PRECISE_LIMIT` index rows after readSeq
   * (beyond: `unread = UNREAD_PRECISE_LIMIT, precise = false`). Results in input order.
   */
  conversationSummaries(viewer: Viewer, queries: readonly SummaryQuery[]): Promise<ConversationSummary[]>;

  /** Releases connections. */
  close(): Promise<void>;
}
