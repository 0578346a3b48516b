import { COMMIT_AUX_TTL_MS, InvalidInputError, assertSameRequest, requestIdentity, systemClock } from '@qim/store-core';
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
import { CqlRunner } from '../session/cql-runner';
import { InFlightLimit, MAX_MAX_IN_FLIGHT } from '../session/in-flight-limit';
import type { ScyllaSession } from '../session/scylla-session';
import { StatementCounter } from '../session/statement-counter';
import { ClaimReleases, DEFAULT_CLAIM_LEASE_MS } from './claim';
import { loadStoredCommit } from './commit-rows';
import { NO_SCYLLA_MESSAGE_FAULTS } from './scylla-message-faults';
import type { ScyllaMessageFaults } from './scylla-message-faults';
import { historyPage } from './history-page';
import { createMessageContext } from './message-context';
import type { MessageContext } from './message-context';
import { gcCommittedAuxiliary, scanRecoverableCommits } from './recovery-scan';
import { reserve } from './reserve';
import { ReserveSingleFlight } from './reserve-single-flight';
import { SequenceAllocator } from './sequence-allocator';
import { conversationSummaries } from './summaries';
import { markCommitted, markOutboxPublished, markPublishedAndCommitted, putRecord } from './transitions';

export interface ScyllaMessageStoreOptions {
  /** "Now" for committed_at, remaining TTLs and the recovery window. Server TTLs still rule expiry. Default `systemClock`. */
  readonly clock?: Clock;
  /** Lifetime of auxiliary commit facts, ms (≥ 1000). Default `COMMIT_AUX_TTL_MS`; the contract gate uses a short one. */
  readonly commitAuxTtlMs?: bigint;
  /**
   * How long a claim on a commit key holds before another reserve of the same request may take it
   * over (its claimant is then taken to have crashed), ms (≥ 100). Default 15 000; gates use less.
   */
  readonly claimLeaseMs?: bigint;
  /**
   * Bound on the statements this store has in flight (1 … 1024, default 1024: below the driver's
   * 2,048 requests per connection, so a burst waits for a slot instead of failing in the driver).
   */
  readonly maxStatementsInFlight?: number;
  /** Counts every statement by name (LWTs apart) and the requests in flight; default a private one (`statements`). */
  readonly counter?: StatementCounter;
  /** Test seam: crash injection between the durable steps (`ScyllaMessageFaults`); production passes none. */
  readonly faults?: ScyllaMessageFaults;
}

/**
 * `MessageStore` over CQL (ScyllaDB or Apache Cassandra), seed "MessageStore schema 与操作".
 * Expects `migrate` to have run with `MESSAGE_TABLES`; it never touches schema. The store owns the
 * session: `close()` shuts it down.
 */
export class ScyllaMessageStore implements MessageStore {
  readonly capabilities: MessageStoreCapabilities = Object.freeze({ injectableClock: false, needsHousekeeping: false });
  /** Every statement this store ran, by name (`sequence.step`, `commit.claim`, …; LWTs apart). */
  readonly statements: StatementCounter;
  private readonly ctx: MessageContext;
  private readonly seqs: SequenceAllocator;
  private readonly reserves: ReserveSingleFlight;
  private readonly releases: ClaimReleases;

  constructor(
    private readonly session: ScyllaSession,
    options: ScyllaMessageStoreOptions = {},
  ) {
    const auxTtlMs = options.commitAuxTtlMs ?? COMMIT_AUX_TTL_MS;
    if (typeof auxTtlMs !== 'bigint' || auxTtlMs < 1000n) throw new InvalidInputError('commitAuxTtlMs must be at least 1000 ms');
    const claimLeaseMs = options.claimLeaseMs ?? DEFAULT_CLAIM_LEASE_MS;
    if (typeof claimLeaseMs !== 'bigint' || claimLeaseMs < 100n) throw new InvalidInputError('claimLeaseMs must be at least 100 ms');
    const clock = options.clock ?? systemClock;
    this.statements = options.counter ?? new StatementCounter();
    const cql = new CqlRunner(session.client, session.config.keyspace, this.statements, new InFlightLimit(options.maxStatementsInFlight ?? MAX_MAX_IN_FLIGHT));
    this.ctx = createMessageContext(cql, { clock, auxTtlMs, claimLeaseMs, faults: options.faults ?? NO_SCYLLA_MESSAGE_FAULTS });
    this.seqs = new SequenceAllocator(this.ctx);
    this.releases = new ClaimReleases(this.ctx);
    this.reserves = new ReserveSingleFlight((input) => reserve(this.ctx, this.seqs, this.releases, input));
  }

  /** Lifetime of the auxiliary commit facts this store writes (ms). */
  get commitAuxTtlMs(): bigint {
    return this.ctx.auxTtlMs;
  }

  /** LWT rounds spent on seq allocation so far (`sequence.init` + `sequence.step`; benchmarks). */
  get seqLwtRounds(): number {
    return this.statements.lwtCount('sequence.');
  }

  /**
   * Seqs issued so far and the won CAS rounds that issued them (mean group size = seqs / rounds;
   * benchmarks), and the seqs CAS rounds of unknown outcome may have issued (`inDoubt`: the most
   * holes those can have left).
   */
  get seqGroups(): { readonly seqs: number; readonly rounds: number; readonly inDoubt: number } {
    return { seqs: this.seqs.seqsIssued, rounds: this.seqs.wonRounds, inDoubt: this.seqs.seqsInDoubt };
  }

  reserve(input: ReserveInput): Promise<ReserveResult> {
    return this.reserves.run(input);
  }

  putRecord(intent: CommitIntent, record: MessageRecord): Promise<CommitSnapshot> {
    return putRecord(this.ctx, intent, record);
  }

  markOutboxPublished(key: CommitKey, messageId: Id128, publication: Publication): Promise<CommitSnapshot> {
    return markOutboxPublished(this.ctx, key, messageId, publication);
  }

  markCommitted(key: CommitKey): Promise<CommitSnapshot> {
    return markCommitted(this.ctx, key);
  }

  markPublishedAndCommitted(intent: CommitIntent, publication: Publication): Promise<CommitSnapshot> {
    return markPublishedAndCommitted(this.ctx, intent, publication);
  }

  async loadCommit(key: CommitKey): Promise<CommitSnapshot | null> {
    return (await loadStoredCommit(this.ctx, key))?.snapshot ?? null;
  }

  async loadCommitForRequest(request: SendRequest): Promise<CommitSnapshot | null> {
    const key = { tenantId: request.tenantId, senderId: request.senderId, clientMessageId: request.clientMessageId };
    const stored = await loadStoredCommit(this.ctx, key);
    if (stored === null) return null;
    assertSameRequest('loadCommitForRequest', stored.snapshot.intent.identity, requestIdentity(request));
    return stored.snapshot;
  }

  scanRecoverableCommits(cutoffMs: bigint, maxItems: number): Promise<CommitSnapshot[]> {
    return scanRecoverableCommits(this.ctx, cutoffMs, maxItems);
  }

  gcCommittedAuxiliary(nowMs: bigint, limit: number): Promise<HousekeepingReport> {
    return gcCommittedAuxiliary(this.ctx, nowMs, limit);
  }

  /**
   * Ephemeral records and index rows carry their own TTL and the server removes them; there is
   * no per-expiry index to walk and no DELETE is ever sent, so this pass has nothing to examine.
   */
  async gcExpiredHistory(_nowMs: bigint, limit: number): Promise<HousekeepingReport> {
    if (!Number.isInteger(limit) || limit < 1) throw new InvalidInputError('limit must be a positive integer');
    return { examined: 0, reclaimed: 0, more: false };
  }

  historyPage(authorizer: HistoryAuthorizer, viewer: Viewer, conversationId: Id128, query: HistoryQuery): Promise<HistoryPage> {
    return historyPage(this.ctx, authorizer, viewer, conversationId, query);
  }

  conversationSummaries(viewer: Viewer, queries: readonly SummaryQuery[]): Promise<ConversationSummary[]> {
    return conversationSummaries(this.ctx, viewer, queries);
  }

  close(): Promise<void> {
    this.releases.stop();
    return this.session.close();
  }
}
