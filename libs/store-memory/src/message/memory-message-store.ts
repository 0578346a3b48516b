import { COMMIT_AUX_TTL_MS, UnavailableError, assertSameRequest, commitKeyOf, requestIdentity, validateSendRequest } from '@qim/store-core';
import type {
  Clock,
  CommitIntent,
  CommitKey,
  CommitSnapshot,
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
import { historyPage } from './memory-history';
import { MemoryCommitSteps } from './memory-commit-steps';
import type { MemoryMessageFaults } from './memory-message-faults';
import { MemoryMessageBackend } from './memory-message-backend';
import { scanRecoverable } from './recovery-scan';
import { conversationSummaries } from './memory-summaries';

export interface MemoryMessageStoreOptions {
  /** Time source for every expiry decision (a `ManualClock` in tests). */
  readonly clock: Clock;
  /** Shared storage; a fresh one when omitted. */
  readonly backend?: MemoryMessageBackend;
  /** Lifetime of auxiliary commit facts from the reserve (ms); default `COMMIT_AUX_TTL_MS`. */
  readonly commitAuxTtlMs?: bigint;
  /** Test seam: crash injection inside `reserve`/`putRecord`; production passes none. */
  readonly faults?: MemoryMessageFaults;
}

/** A table whose expired rows can be dropped physically. */
interface Sweepable {
  sweep(now: bigint, limit: number): { dropped: number; more: boolean };
}

/**
 * The reference MessageStore: every rule of the contract, over in-process tables holding the same
 * encoded facts as the Scylla schema. Steps of one operation are separated by event-loop turns, so
 * concurrent calls interleave like network round trips; identical reserves adopt one seq claim, so
 * only a reserve abandoned midway leaves a seq hole (a seq is never reused).
 */
export class MemoryMessageStore implements MessageStore {
  readonly capabilities: MessageStoreCapabilities = Object.freeze({ injectableClock: true, needsHousekeeping: true });
  readonly backend: MemoryMessageBackend;
  readonly commitAuxTtlMs: bigint;
  private readonly clock: Clock;
  private readonly commits: MemoryCommitSteps;
  private closed = false;

  constructor(options: MemoryMessageStoreOptions) {
    this.clock = options.clock;
    this.backend = options.backend ?? new MemoryMessageBackend();
    this.commitAuxTtlMs = options.commitAuxTtlMs ?? COMMIT_AUX_TTL_MS;
    this.commits = new MemoryCommitSteps(this.backend, this.clock, this.commitAuxTtlMs, options.faults);
  }

  async reserve(input: ReserveInput): Promise<ReserveResult> {
    this.open();
    return this.commits.reserve(input);
  }

  async putRecord(intent: CommitIntent, record: MessageRecord): Promise<CommitSnapshot> {
    this.open();
    return this.commits.putRecord(intent, record);
  }

  async markOutboxPublished(key: CommitKey, messageId: Id128, publication: Publication): Promise<CommitSnapshot> {
    this.open();
    return this.commits.markOutboxPublished(key, messageId, publication);
  }

  async markCommitted(key: CommitKey): Promise<CommitSnapshot> {
    this.open();
    return this.commits.markCommitted(key);
  }

  async markPublishedAndCommitted(intent: CommitIntent, publication: Publication): Promise<CommitSnapshot> {
    this.open();
    return this.commits.markPublishedAndCommitted(intent, publication);
  }

  async loadCommit(key: CommitKey): Promise<CommitSnapshot | null> {
    this.open();
    return this.commits.load(key);
  }

  async loadCommitForRequest(request: SendRequest): Promise<CommitSnapshot | null> {
    this.open();
    validateSendRequest(request);
    const snapshot = this.commits.load(commitKeyOf(request));
    if (snapshot !== null) assertSameRequest('loadCommitForRequest', snapshot.intent.identity, requestIdentity(request));
    return snapshot;
  }

  async scanRecoverableCommits(cutoffMs: bigint, maxItems: number): Promise<CommitSnapshot[]> {
    this.open();
    return scanRecoverable(this.backend, this.clock.nowMs(), cutoffMs, maxItems, (key) => this.commits.load(key));
  }

  /** Counts commits: each reclaimed commit row takes its recovery rows and seq claim with it (not counted). */
  async gcCommittedAuxiliary(nowMs: bigint, limit: number): Promise<HousekeepingReport> {
    this.open();
    return this.sweep(nowMs, limit, this.backend.commits, [this.backend.recovery, this.backend.seqClaims]);
  }

  /** Counts messages: each reclaimed record takes its history index row with it (not counted). */
  async gcExpiredHistory(nowMs: bigint, limit: number): Promise<HousekeepingReport> {
    this.open();
    return this.sweep(nowMs, limit, this.backend.records, [this.backend.historyIndex]);
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

  private sweep(nowMs: bigint, limit: number, counted: Sweepable, companions: readonly Sweepable[]): HousekeepingReport {
    const clockNow = this.clock.nowMs();
    const now = nowMs < clockNow ? nowMs : clockNow;
    const r = counted.sweep(now, limit);
    let more = r.more;
    for (const t of companions) more = t.sweep(now, limit).more || more;
    return { examined: r.dropped, reclaimed: r.dropped, more };
  }
}
