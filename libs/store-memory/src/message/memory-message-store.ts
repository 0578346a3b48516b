import {
  COMMIT_AUX_TTL_MS,
  ConflictError,
  NotFoundError,
  UnavailableError,
  assertAdvance,
  bytesEqual,
  commitKeyOf,
  commitKeyString,
  encodeCommitIntent,
  encodeMessageRecord,
  hasReached,
  intentsEqual,
  recordFromIntent,
  recordTtlSeconds,
  recordsEqual,
  requestIdentity,
  validateReserveInput,
  validateSendRequest,
} from '@qim/store-core';
import type {
  Clock,
  CommitIntent,
  CommitKey,
  CommitSnapshot,
  CommitState,
  ConversationSummary,
  HistoryAuthorizer,
  HistoryPage,
  HistoryQuery,
  HousekeepingReport,
  Id128,
  MessageRecord,
  MessageStore,
  MessageStoreCapabilities,
  Publication,
  ReserveInput,
  ReserveResult,
  SendRequest,
  SummaryQuery,
  Viewer,
} from '@qim/store-core';
import { padU64, yieldTurn } from '../storage/memory-tables';
import { snapshotOfRow } from './commit-rows';
import { historyPage } from './memory-history';
import { MemoryMessageBackend, RECOVERY_BUCKET_MS, conversationKey } from './memory-message-backend';
import { scanRecoverable } from './recovery-scan';
import { conversationSummaries } from './memory-summaries';


export interface MemoryMessageStoreOptions {
  /** Time source for every expiry decision (a `ManualClock` in tests). */
  readonly clock: Clock;
  /** Shared storage; a fresh one when omitted. */
  readonly backend?: MemoryMessageBackend;
  /** Lifetime of auxiliary commit facts from the reserve (ms); default `COMMIT_AUX_TTL_MS`. */
  readonly commitAuxTtlMs?: bigint;
}

/**
 * The reference MessageStore: every rule of the contract, over in-process tables holding the same
 * encoded facts as the Scylla schema. Steps of one operation are separated by event-loop turns, so
 * concurrent calls interleave like network round trips (lost races leave seq holes, never reuse).
 */
export class MemoryMessageStore implements MessageStore {
  readonly capabilities: MessageStoreCapabilities = Object.freeze({ injectableClock: true });
  readonly backend: MemoryMessageBackend;
  readonly commitAuxTtlMs: bigint;
  private readonly clock: Clock;
  private closed = false;

  constructor(options: MemoryMessageStoreOptions) {
    this.clock = options.clock;
    this.backend = options.backend ?? new MemoryMessageBackend();
    this.commitAuxTtlMs = options.commitAuxTtlMs ?? COMMIT_AUX_TTL_MS;
  }

  async reserve(input: ReserveInput): Promise<ReserveResult> {
    this.open();
    const valid = validateReserveInput(input);
    const key = commitKeyOf(valid.request);
    const identity = requestIdentity(valid.request);
    const existing = this.load(key);
    if (existing !== null) return { snapshot: this.replayOf(existing, identity), created: false };
    await yieldTurn();

    const ks = commitKeyString(key);
    const reservedAt = this.clock.nowMs();
    const auxExpiry = reservedAt + this.commitAuxTtlMs;
    this.backend.recovery.put(
      padU64(valid.createdAt / RECOVERY_BUCKET_MS),
      `${padU64(valid.createdAt)}:${ks}`,
      { createdAt: valid.createdAt, key: ks, ...key },
      auxExpiry,
    );
    await yieldTurn();

    const conv = conversationKey(key.tenantId, valid.request.conversationId);
    const seq = (this.backend.sequences.get(conv, this.clock.nowMs()) ?? 0n) + 1n;
    this.backend.sequences.put(conv, seq, null);
    await yieldTurn();

    const raced = this.load(key);
    if (raced !== null) return { snapshot: this.replayOf(raced, identity), created: false };
    const intent: CommitIntent = {
      key,
      identity,
      request: valid.request,
      seq,
      messageId: valid.messageId,
      createdAt: valid.createdAt,
      recipients: valid.recipients,
      publication: null,
    };
    const blob = encodeCommitIntent(intent);
    this.backend.commits.put(ks, { identity, intent: blob, state: 'RESERVED', createdAt: valid.createdAt, committedAt: null }, auxExpiry);
    return { snapshot: this.require(key), created: true };
  }

  async putRecord(intent: CommitIntent, record: MessageRecord): Promise<CommitSnapshot> {
    this.open();
    const current = this.require(intent.key);
    if (!intentsEqual(current.intent, intent, true)) throw new ConflictError('putRecord: the intent is not the stored intent of this commit');
    const expected = recordFromIntent(current.intent);
    if (!recordsEqual(expected, record)) throw new ConflictError('putRecord: the record is not recordFromIntent(intent)');
    if (hasReached(current.state, 'RECORDED')) return current;
    await yieldTurn();

    const now = this.clock.nowMs();
    const ttl = recordTtlSeconds(expected.retention);
    const expiresAt = ttl === null ? null : now + BigInt(ttl) * 1000n;
    const conv = conversationKey(expected.tenantId, expected.conversationId);
    this.backend.records.put(conv, expected.seq, encodeMessageRecord(expected), expiresAt);
    this.backend.historyIndex.put(conv, expected.seq, { messageId: expected.messageId }, expiresAt);
    await yieldTurn();
    return this.advance(intent.key, 'RESERVED', 'RECORDED');
  }

  async markOutboxPublished(key: CommitKey, messageId: Id128, publication: Publication): Promise<CommitSnapshot> {
    this.open();
    const current = this.require(key);
    if (current.intent.messageId !== messageId) throw new ConflictError('markOutboxPublished: another message id');
    if (hasReached(current.state, 'OUTBOXED')) return current;
    assertAdvance(current.state, 'OUTBOXED');
    const published = encodeCommitIntent({ ...current.intent, publication });
    return this.advance(key, 'RECORDED', 'OUTBOXED', published);
  }

  async markCommitted(key: CommitKey): Promise<CommitSnapshot> {
    this.open();
    const current = this.require(key);
    if (current.state === 'COMMITTED') return current;
    assertAdvance(current.state, 'COMMITTED');
    return this.advance(key, 'OUTBOXED', 'COMMITTED');
  }

  async loadCommit(key: CommitKey): Promise<CommitSnapshot | null> {
    this.open();
    return this.load(key);
  }

  async loadCommitForRequest(request: SendRequest): Promise<CommitSnapshot | null> {
    this.open();
    validateSendRequest(request);
    const snapshot = this.load(commitKeyOf(request));
    if (snapshot === null) return null;
    return this.replayOf(snapshot, requestIdentity(request));
  }

  async scanRecoverableCommits(cutoffMs: bigint, maxItems: number): Promise<CommitSnapshot[]> {
    this.open();
    return scanRecoverable(this.backend, this.clock.nowMs(), cutoffMs, maxItems, (key) => this.load(key));
  }

  async gcCommittedAuxiliary(nowMs: bigint, limit: number): Promise<HousekeepingReport> {
    this.open();
    return this.sweep(nowMs, limit, [this.backend.commits, this.backend.recovery]);
  }

  async gcExpiredHistory(nowMs: bigint, limit: number): Promise<HousekeepingReport> {
    this.open();
    return this.sweep(nowMs, limit, [this.backend.records, this.backend.historyIndex]);
  }

  async historyPage(authorizer: HistoryAuthorizer, viewer: Viewer, conversationId: Id128, query: HistoryQuery): Promise<HistoryPage> {
    this.open();
    return historyPage(this.backend, this.clock, authorizer, viewer, conversationId, query);
  }

  async conversationSummaries(viewer: Viewer, queries: readonly SummaryQuery[]): Promise<ConversationSummary[]> {
    this.open();
    return conversationSummaries(this.backend, this.clock, viewer, queries);
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private open(): void {
    if (this.closed) throw new UnavailableError('the MemoryMessageStore is closed');
  }

  private load(key: CommitKey): CommitSnapshot | null {
    const ks = commitKeyString(key);
    const row = this.backend.commits.get(ks, this.clock.nowMs());
    return row === null ? null : snapshotOfRow(ks, row, key);
  }

  private require(key: CommitKey): CommitSnapshot {
    const s = this.load(key);
    if (s === null) throw new NotFoundError(`no commit ${commitKeyString(key)}`);
    return s;
  }

  /** A replay is only the same request: identical identity bytes. */
  private replayOf(existing: CommitSnapshot, identity: Uint8Array): CommitSnapshot {
    if (!bytesEqual(existing.intent.identity, identity)) throw new ConflictError('the commit key is already used by a different request');
    return existing;
  }

  /** Conditional state move `IF state = from`; a lost condition answers with the current snapshot. */
  private advance(key: CommitKey, from: CommitState, to: CommitState, intentBlob?: Buffer): CommitSnapshot {
    const ks = commitKeyString(key);
    const now = this.clock.nowMs();
    const row = this.backend.commits.get(ks, now);
    if (row === null) throw new NotFoundError(`commit ${ks} vanished`);
    if (row.state === from) {
      const committedAt = to === 'COMMITTED' ? now : row.committedAt;
      this.backend.commits.update(ks, { ...row, state: to, intent: intentBlob ?? row.intent, committedAt }, now);
    }
    return this.require(key);
  }

  private sweep(nowMs: bigint, limit: number, tables: readonly { sweep(now: bigint, limit: number): { dropped: number; more: boolean } }[]): HousekeepingReport {
    const clockNow = this.clock.nowMs();
    const now = nowMs < clockNow ? nowMs : clockNow;
    let reclaimed = 0;
    let more = false;
    for (const t of tables) {
      const r = t.sweep(now, Math.max(0, limit - reclaimed));
      reclaimed += r.dropped;
      more = more || r.more;
    }
    return { examined: reclaimed, reclaimed, more };
  }
}
