import type { Id128 } from '../model/ids';
import type { CommitIntent, CommitKey, CommitSnapshot, MessageRecord, Publication, SendRequest } from '../model/message';

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

/**
 * The commit lifecycle of durable message facts, what `DurableMessageCommitter` drives
 * (RESERVED → RECORDED → OUTBOXED → COMMITTED) and what a replayed send reads back. The backend never
 * ACKs, publishes or fans out. Every operation is safe to retry.
 */
export interface MessageCommitSteps {
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
}
