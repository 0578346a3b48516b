import {
  COMMIT_STEP_TEXTS,
  assertRecordOfIntent,
  commitConflict,
  assertSameRequest,
  commitKeyOf,
  commitKeyString,
  decideMarkCommitted,
  decideMarkOutboxPublished,
  decideMarkPublishedAndCommitted,
  decidePutRecord,
  decideSeqClaim,
  encodeCommitIntent,
  encodeMessageRecord,
  identityOfEncodedRequest,
  encodeSendRequest,
  recordFromIntent,
  recordExpiresAtMs,
  requestIdentity,
  reservedIntentOf,
  validateReserveInput,
  validateSendRequest,
} from '@qim/store-core';
import type {
  Clock,
  CommitIntent,
  CommitKey,
  CommitSnapshot,
  CommitState,
  Id128,
  MessageCommitSteps,
  MessageRecord,
  Publication,
  ReserveInput,
  ReserveResult,
  SendRequest,
  SeqClaim,
  StepDecision,
} from '@qim/store-core';
import { padU64, yieldTurn } from '../storage/memory-tables';
import { snapshotOfRow } from './commit-rows';
import { RECOVERY_BUCKET_MS, conversationKey } from './memory-message-backend';
import type { MemoryMessageBackend } from './memory-message-backend';
import { NO_MEMORY_MESSAGE_FAULTS } from './memory-message-faults';
import type { MemoryMessageFaults } from './memory-message-faults';
import type { MemoryOpenGate } from './memory-open-gate';

/**
 * The commit lifecycle of the Memory MessageStore. Every decision comes from the store-core step
 * functions (`decidePutRecord`, …); this class only reads, writes and interleaves. Steps of one
 * operation are separated by event-loop turns, like network round trips, so concurrent calls from
 * several stores over one backend interleave as writers over one database would. Every port method
 * checks `gate` first (a closed store → `UnavailableError`); `load` is the unchecked read the other
 * parts use.
 */
export class MemoryCommitSteps implements MessageCommitSteps {
  constructor(
    private readonly backend: MemoryMessageBackend,
    private readonly clock: Clock,
    private readonly commitAuxTtlMs: bigint,
    private readonly gate: MemoryOpenGate,
    private readonly faults: MemoryMessageFaults = NO_MEMORY_MESSAGE_FAULTS,
  ) {}

  /** The live commit of `key`, decoded; null when absent or expired. */
  load(key: CommitKey): CommitSnapshot | null {
    const ks = commitKeyString(key);
    const row = this.backend.commits.get(ks, this.clock.nowMs());
    return row === null ? null : snapshotOfRow(ks, row, key);
  }

  /** Recovery row → claim + seq (one atomic step) → RESERVED commit row (first writer wins). */
  async reserve(raw: ReserveInput): Promise<ReserveResult> {
    this.gate.check();
    const input = validateReserveInput(raw);
    const { request } = input;
    const key = commitKeyOf(request);
    const identity = identityOfEncodedRequest(encodeSendRequest(request));
    const existing = this.load(key);
    if (existing !== null) return this.replay(existing, identity);
    await yieldTurn();

    const ks = commitKeyString(key);
    const auxExpiry = this.clock.nowMs() + this.commitAuxTtlMs;
    this.backend.recovery.put(
      padU64(input.createdAt / RECOVERY_BUCKET_MS),
      `${padU64(input.createdAt)}:${ks}`,
      { createdAt: input.createdAt, key: ks, ...key },
      auxExpiry,
    );
    this.faults.at('reserve:after-recovery-entry');
    await yieldTurn();

    const claim = this.claimSeq(conversationKey(key.tenantId, request.conversationId), ks, identity, input, auxExpiry);
    this.faults.at('reserve:after-seq');
    await yieldTurn();

    const raced = this.load(key);
    if (raced !== null) return this.replay(raced, identity);
    const intent = reservedIntentOf(request, identity, input.recipients, claim);
    this.backend.commits.put(
      ks,
      { identity, intent: encodeCommitIntent(intent), state: 'RESERVED', createdAt: intent.createdAt, committedAt: null },
      auxExpiry,
    );
    this.faults.at('reserve:after-commit');
    return { snapshot: { intent, state: 'RESERVED' }, created: true };
  }

  async putRecord(intent: CommitIntent, record: MessageRecord): Promise<CommitSnapshot> {
    this.gate.check();
    assertRecordOfIntent(intent, record);
    const d = decidePutRecord(this.load(intent.key), intent, record);
    if (d.action === 'answer') return d.snapshot;
    await yieldTurn();

    this.writeRecord(recordFromIntent(intent));
    this.faults.at('put-record:after-index');
    await yieldTurn();
    return this.advance(intent.key, (s) => decidePutRecord(s, intent, record), 'RECORDED');
  }

  async markOutboxPublished(key: CommitKey, messageId: Id128, publication: Publication): Promise<CommitSnapshot> {
    this.gate.check();
    return this.advance(key, (s) => decideMarkOutboxPublished(s, messageId), 'OUTBOXED', publication);
  }

  async markCommitted(key: CommitKey): Promise<CommitSnapshot> {
    this.gate.check();
    return this.advance(key, decideMarkCommitted, 'COMMITTED');
  }

  async markPublishedAndCommitted(intent: CommitIntent, publication: Publication): Promise<CommitSnapshot> {
    this.gate.check();
    return this.advance(intent.key, (s) => decideMarkPublishedAndCommitted(s, intent), 'COMMITTED', publication);
  }

  async loadCommit(key: CommitKey): Promise<CommitSnapshot | null> {
    this.gate.check();
    return this.load(key);
  }

  async loadCommitForRequest(request: SendRequest): Promise<CommitSnapshot | null> {
    this.gate.check();
    validateSendRequest(request);
    const snapshot = this.load(commitKeyOf(request));
    if (snapshot !== null) assertSameRequest('loadCommitForRequest', snapshot.intent.identity, requestIdentity(request));
    return snapshot;
  }

  /**
   * The record and its index row, in one turn (check and write are one atomic step): another
   * message's record at the seq (a seq handed out twice) → `ConflictError` and nothing written; an
   * Ephemeral record expires at `createdAt + ttl` (`recordExpiresAtMs`), and one already past that
   * is not written at all.
   */
  private writeRecord(r: MessageRecord): void {
    const now = this.clock.nowMs();
    const conv = conversationKey(r.tenantId, r.conversationId);
    const bytes = encodeMessageRecord(r);
    const existing = this.backend.records.get(conv, r.seq, now);
    if (existing !== null && !existing.equals(bytes)) throw commitConflict('putRecord', COMMIT_STEP_TEXTS.seqTaken);
    const expiresAt = recordExpiresAtMs(r);
    if (expiresAt !== null && expiresAt <= now) return;
    this.backend.records.put(conv, r.seq, bytes, expiresAt);
    this.faults.at('put-record:after-record');
    this.backend.historyIndex.put(conv, r.seq, { messageId: r.messageId }, expiresAt);
  }

  /** Replay or conflict of an existing commit (`assertSameRequest`). */
  private replay(existing: CommitSnapshot, identity: Uint8Array): ReserveResult {
    assertSameRequest('reserve', existing.intent.identity, identity);
    return { snapshot: existing, created: false };
  }

  /** The claim rule (`decideSeqClaim`) and the allocation, in one turn: nothing can interleave. */
  private claimSeq(conv: string, ks: string, identity: Buffer, input: ReserveInput, auxExpiry: bigint): SeqClaim {
    const now = this.clock.nowMs();
    const existing = this.backend.seqClaims.get(conv, ks, now);
    if (decideSeqClaim(existing, identity) === 'adopt') return existing!;
    const seq = (this.backend.sequences.get(conv, now) ?? 0n) + 1n;
    this.backend.sequences.put(conv, seq, null);
    const claim = { identity, seq, messageId: input.messageId, createdAt: input.createdAt };
    this.backend.seqClaims.put(conv, ks, claim, auxExpiry);
    return claim;
  }

  /**
   * One state move to `to`, decided by `decide` on the current commit (the decision only says
   * `write` from a state that may move there). Synchronous, so reading, deciding and writing are one
   * atomic step. A stored publication is kept; otherwise `publication` (when given) is stored.
   */
  private advance(key: CommitKey, decide: (s: CommitSnapshot | null) => StepDecision, to: CommitState, publication?: Publication): CommitSnapshot {
    const current = this.load(key);
    const d = decide(current);
    if (d.action === 'answer') return d.snapshot;
    const now = this.clock.nowMs();
    const ks = commitKeyString(key);
    const row = this.backend.commits.get(ks, now)!;
    const stored = current!.intent;
    const intent = stored.publication === null && publication !== undefined ? encodeCommitIntent({ ...stored, publication }) : row.intent;
    this.backend.commits.update(ks, { ...row, state: to, intent, committedAt: to === 'COMMITTED' ? now : row.committedAt }, now);
    return this.load(key)!;
  }
}
