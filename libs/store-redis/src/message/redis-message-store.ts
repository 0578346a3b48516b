import { COMMIT_AUX_TTL_MS, InvalidInputError } from '@qim/store-core';
import type {
  CommitIntent,
  CommitKey,
  CommitSnapshot,
  ConversationSummary,
  HistoryAuthorizer,
  HistoryPage,
  HistoryQuery,
  HousekeepingReport,
  Id128,
  MessageCommitSteps,
  MessageHousekeeping,
  MessageReads,
  MessageRecord,
  MessageRecoveryScan,
  MessageStore,
  MessageStoreCapabilities,
  Publication,
  ReserveInput,
  ReserveResult,
  SendRequest,
  SummaryQuery,
  Viewer,
} from '@qim/store-core';
import { RedisKeys } from '../keys/redis-keys';
import { RedisIo } from '../redis/redis-io';
import { releaseConnection, resolveGrace } from '../redis/store-options';
import type { RedisStoreOptions } from '../redis/store-options';
import { RedisCommitOps } from './redis-commit-ops';
import type { RedisMessageFaults } from './redis-message-faults';
import { RedisHistoryReads } from './redis-history-reads';
import { RedisMessageHousekeeping } from './redis-message-housekeeping';
import { RedisRecoveryScan } from './redis-recovery-scan';

export interface RedisMessageStoreOptions extends RedisStoreOptions {
  /** Lifetime of auxiliary commit facts from the reserve (ms). Production: 2 h (the default). */
  readonly commitAuxTtlMs?: bigint;
  /**
   * Group commit (ADR-0039, default on): the commit-path script calls of concurrent commits made in
   * one event-loop turn share one EVALSHA on a standalone server. Off: one EVALSHA per call (A/B).
   */
  readonly groupCommit?: boolean;
  /** Test seam: crash injection inside `reserve`/`putRecord` (`RedisMessageFaults`); production passes none. */
  readonly faults?: RedisMessageFaults;
}

/**
 * `MessageStore` over Redis: atomic Lua scripts per hash tag (see `RedisKeys`), the store-core
 * codecs' bytes as values, logical time from the injected clock. One part per capability port —
 * commit steps, recovery scan, housekeeping, reads — each implementing it; this class only joins
 * them into the one object the backend module hands out.
 */
export class RedisMessageStore implements MessageStore {
  readonly capabilities: MessageStoreCapabilities = Object.freeze({ injectableClock: true, needsHousekeeping: true });
  readonly io: RedisIo;
  readonly keys: RedisKeys;
  private readonly commits: MessageCommitSteps;
  private readonly recovery: MessageRecoveryScan;
  private readonly housekeeping: Omit<MessageHousekeeping, 'capabilities'>;
  private readonly reads: MessageReads;

  constructor(private readonly options: RedisMessageStoreOptions) {
    this.io = new RedisIo(options.redis, {
      groupCommit: options.groupCommit ?? true,
      namespace: options.namespace,
      ...(options.replicaAcks === undefined ? {} : { replicaAcks: options.replicaAcks }),
    });
    this.keys = new RedisKeys(options.namespace);
    const commitAuxTtlMs = options.commitAuxTtlMs ?? COMMIT_AUX_TTL_MS;
    if (commitAuxTtlMs < 1n) throw new InvalidInputError('commitAuxTtlMs must be positive');
    const commits = new RedisCommitOps({
      io: this.io,
      keys: this.keys,
      clock: options.clock,
      commitAuxTtlMs,
      physicalGraceMs: resolveGrace(options),
      faults: options.faults,
    });
    this.commits = commits;
    this.recovery = new RedisRecoveryScan(this.io, this.keys, options.clock, commits);
    this.housekeeping = new RedisMessageHousekeeping(this.io, this.keys);
    this.reads = new RedisHistoryReads(this.io, this.keys, options.clock);
  }

  reserve(input: ReserveInput): Promise<ReserveResult> {
    return this.commits.reserve(input);
  }

  putRecord(intent: CommitIntent, record: MessageRecord): Promise<CommitSnapshot> {
    return this.commits.putRecord(intent, record);
  }

  markOutboxPublished(key: CommitKey, messageId: Id128, publication: Publication): Promise<CommitSnapshot> {
    return this.commits.markOutboxPublished(key, messageId, publication);
  }

  markCommitted(key: CommitKey): Promise<CommitSnapshot> {
    return this.commits.markCommitted(key);
  }

  markPublishedAndCommitted(intent: CommitIntent, publication: Publication): Promise<CommitSnapshot> {
    return this.commits.markPublishedAndCommitted(intent, publication);
  }

  loadCommit(key: CommitKey): Promise<CommitSnapshot | null> {
    return this.commits.loadCommit(key);
  }

  loadCommitForRequest(request: SendRequest): Promise<CommitSnapshot | null> {
    return this.commits.loadCommitForRequest(request);
  }

  scanRecoverableCommits(cutoffMs: bigint, maxItems: number): Promise<CommitSnapshot[]> {
    return this.recovery.scanRecoverableCommits(cutoffMs, maxItems);
  }

  gcCommittedAuxiliary(nowMs: bigint, limit: number): Promise<HousekeepingReport> {
    return this.housekeeping.gcCommittedAuxiliary(nowMs, limit);
  }

  gcExpiredHistory(nowMs: bigint, limit: number): Promise<HousekeepingReport> {
    return this.housekeeping.gcExpiredHistory(nowMs, limit);
  }

  historyPage(authorizer: HistoryAuthorizer, viewer: Viewer, conversationId: Id128, query: HistoryQuery): Promise<HistoryPage> {
    return this.reads.historyPage(authorizer, viewer, conversationId, query);
  }

  conversationSummaries(viewer: Viewer, queries: readonly SummaryQuery[]): Promise<ConversationSummary[]> {
    return this.reads.conversationSummaries(viewer, queries);
  }

  close(): Promise<void> {
    return releaseConnection(this.options);
  }
}
