import { InvalidInputError, assertSameRequest, commitKeyOf, commitKeyString, parseId128, requestIdentity, validateSendRequest } from '@qim/store-core';
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
import { COMMIT_SHARDS, RedisKeys } from '../keys/redis-keys';
import { RedisIo } from '../redis/redis-io';
import { ScriptReply } from '../redis/script-reply';
import { COMMIT_AUX_TTL_MS } from '@qim/store-core';
import { releaseConnection, resolveGrace } from '../redis/store-options';
import type { RedisStoreOptions } from '../redis/store-options';
import { scanRecoveryCall } from './message-script-args';
import { RedisCommitOps } from './redis-commit-ops';
import type { RedisMessageFaults } from './redis-commit-ops';
import { RedisHistoryReads } from './redis-history-reads';
import { RedisMessageHousekeeping } from './redis-message-housekeeping';
import { CLAIMED, snapshotOf } from './stored-commit';

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
 * codecs' bytes as values, logical time from the injected clock.
 */
export class RedisMessageStore implements MessageStore {
  readonly capabilities: MessageStoreCapabilities = Object.freeze({ injectableClock: true, needsHousekeeping: true });
  readonly io: RedisIo;
  readonly keys: RedisKeys;
  private readonly commits: RedisCommitOps;
  private readonly history: RedisHistoryReads;
  private readonly housekeeping: RedisMessageHousekeeping;

  constructor(private readonly options: RedisMessageStoreOptions) {
    this.io = new RedisIo(options.redis, {
      groupCommit: options.groupCommit ?? true,
      namespace: options.namespace,
      ...(options.replicaAcks === undefined ? {} : { replicaAcks: options.replicaAcks }),
    });
    this.keys = new RedisKeys(options.namespace);
    const commitAuxTtlMs = options.commitAuxTtlMs ?? COMMIT_AUX_TTL_MS;
    if (commitAuxTtlMs < 1n) throw new InvalidInputError('commitAuxTtlMs must be positive');
    this.commits = new RedisCommitOps({ io: this.io, keys: this.keys, clock: options.clock, commitAuxTtlMs, physicalGraceMs: resolveGrace(options), faults: options.faults });
    this.history = new RedisHistoryReads(this.io, this.keys, options.clock);
    this.housekeeping = new RedisMessageHousekeeping(this.io, this.keys);
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

  async loadCommit(key: CommitKey): Promise<CommitSnapshot | null> {
    return (await this.commits.load(key))?.snapshot ?? null;
  }

  async loadCommitForRequest(request: SendRequest): Promise<CommitSnapshot | null> {
    validateSendRequest(request);
    const snapshot = await this.loadCommit(commitKeyOf(request));
    if (snapshot !== null) assertSameRequest('loadCommitForRequest', snapshot.intent.identity, requestIdentity(request));
    return snapshot;
  }

  async scanRecoverableCommits(cutoffMs: bigint, maxItems: number): Promise<CommitSnapshot[]> {
    if (!Number.isInteger(maxItems) || maxItems < 1) throw new InvalidInputError('maxItems must be an integer ≥ 1');
    const now = this.options.clock.nowMs();
    const cap = Math.max(1000, maxItems * 8);
    const calls = Array.from({ length: COMMIT_SHARDS }, (_, s) => scanRecoveryCall(this.keys.commitShard(s), cutoffMs, now, maxItems, cap));
    const found: CommitSnapshot[] = [];
    const claimed: CommitKey[] = [];
    for (const raw of await this.io.scripts(calls, 'read')) {
      const reply = ScriptReply.of(raw, 'scanRecoverableCommits');
      for (let i = 2; i < reply.length; i += 3) {
        if (reply.str(i) === CLAIMED) claimed.push(commitKeyOfMember(reply.str(i + 1)));
        else found.push(snapshotOf(reply.buf(i), reply.buf(i + 2)));
      }
    }
    // A CLAIMED commit is RESERVED only with its seq claim; without one no seq was spent: skipped.
    for (const loaded of await Promise.all(claimed.map((key) => this.commits.load(key)))) {
      if (loaded !== null && loaded.snapshot.state === 'RESERVED') found.push(loaded.snapshot);
    }
    return found
      .filter((s) => s.intent.createdAt < cutoffMs)
      .sort((a, b) => (a.intent.createdAt !== b.intent.createdAt ? (a.intent.createdAt < b.intent.createdAt ? -1 : 1) : commitKeyString(a.intent.key) < commitKeyString(b.intent.key) ? -1 : 1))
      .slice(0, maxItems);
  }

  gcCommittedAuxiliary(nowMs: bigint, limit: number): Promise<HousekeepingReport> {
    return this.housekeeping.gcCommittedAuxiliary(nowMs, limit);
  }

  gcExpiredHistory(nowMs: bigint, limit: number): Promise<HousekeepingReport> {
    return this.housekeeping.gcExpiredHistory(nowMs, limit);
  }

  historyPage(authorizer: HistoryAuthorizer, viewer: Viewer, conversationId: Id128, query: HistoryQuery): Promise<HistoryPage> {
    return this.history.historyPage(authorizer, viewer, conversationId, query);
  }

  conversationSummaries(viewer: Viewer, queries: readonly SummaryQuery[]): Promise<ConversationSummary[]> {
    return this.history.conversationSummaries(viewer, queries);
  }

  close(): Promise<void> {
    return releaseConnection(this.options);
  }
}

/** The commit key of a recovery index member (96 hex: tenant, sender, client message id). */
function commitKeyOfMember(member: string): CommitKey {
  return { tenantId: parseId128(member.slice(0, 32)), senderId: parseId128(member.slice(32, 64)), clientMessageId: parseId128(member.slice(64, 96)) };
}
