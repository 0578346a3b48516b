import type { HousekeepingReport } from '../model/mailbox';
import type { CommitIntent, CommitKey, CommitSnapshot, MessageRecord, Publication, SendRequest, Viewer } from '../model/message';
import type { Id128 } from '../model/ids';
import type { HistoryAuthorizer } from './history-authorizer';
import type { MessageCommitSteps, ReserveInput, ReserveResult } from './message-commit-steps';
import type { MessageHousekeeping } from './message-housekeeping';
import type { ConversationSummary, HistoryPage, HistoryQuery, MessageReads, SummaryQuery } from './message-reads';
import type { MessageRecoveryScan } from './message-recovery-scan';
import type { MessageStore } from './message-store';
import type { MessageStoreCapabilities } from './message-store-capabilities';

/**
 * A backend's message facts as one part per capability port (ADR-0040). Housekeeping leaves out
 * `capabilities`: the store that joins the parts declares them.
 */
export interface MessageParts {
  readonly commits: MessageCommitSteps;
  readonly recovery: MessageRecoveryScan;
  readonly housekeeping: Omit<MessageHousekeeping, 'capabilities'>;
  readonly reads: MessageReads;
}

/**
 * A `MessageStore` joined from its parts: every port method forwards to its part, with the same
 * arguments, and returns (or throws) what the part does. A backend's store class extends it, hands
 * its parts to the constructor, and supplies `capabilities` and `close()`.
 */
export abstract class JoinedMessageStore implements MessageStore {
  abstract readonly capabilities: MessageStoreCapabilities;
  private readonly parts: MessageParts;

  protected constructor(parts: MessageParts) {
    this.parts = parts;
  }

  /** Releases connections. */
  abstract close(): Promise<void>;

  reserve(input: ReserveInput): Promise<ReserveResult> {
    return this.parts.commits.reserve(input);
  }

  putRecord(intent: CommitIntent, record: MessageRecord): Promise<CommitSnapshot> {
    return this.parts.commits.putRecord(intent, record);
  }

  markOutboxPublished(key: CommitKey, messageId: Id128, publication: Publication): Promise<CommitSnapshot> {
    return this.parts.commits.markOutboxPublished(key, messageId, publication);
  }

  markCommitted(key: CommitKey): Promise<CommitSnapshot> {
    return this.parts.commits.markCommitted(key);
  }

  markPublishedAndCommitted(intent: CommitIntent, publication: Publication): Promise<CommitSnapshot> {
    return this.parts.commits.markPublishedAndCommitted(intent, publication);
  }

  loadCommit(key: CommitKey): Promise<CommitSnapshot | null> {
    return this.parts.commits.loadCommit(key);
  }

  loadCommitForRequest(request: SendRequest): Promise<CommitSnapshot | null> {
    return this.parts.commits.loadCommitForRequest(request);
  }

  scanRecoverableCommits(cutoffMs: bigint, maxItems: number): Promise<CommitSnapshot[]> {
    return this.parts.recovery.scanRecoverableCommits(cutoffMs, maxItems);
  }

  gcCommittedAuxiliary(nowMs: bigint, limit: number): Promise<HousekeepingReport> {
    return this.parts.housekeeping.gcCommittedAuxiliary(nowMs, limit);
  }

  gcExpiredHistory(nowMs: bigint, limit: number): Promise<HousekeepingReport> {
    return this.parts.housekeeping.gcExpiredHistory(nowMs, limit);
  }

  historyPage(authorizer: HistoryAuthorizer, viewer: Viewer, conversationId: Id128, query: HistoryQuery): Promise<HistoryPage> {
    return this.parts.reads.historyPage(authorizer, viewer, conversationId, query);
  }

  conversationSummaries(viewer: Viewer, queries: readonly SummaryQuery[]): Promise<ConversationSummary[]> {
    return this.parts.reads.conversationSummaries(viewer, queries);
  }
}
