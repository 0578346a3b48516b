import { InvalidInputError, assertU64, checkMailboxRetention, rangeScanEach, systemClock } from '@qim/store-core';
import type {
  AppendReport,
  Clock,
  DispatchPage,
  Id128,
  MailboxEntryInput,
  MailboxGcConfig,
  MailboxStore,
  MailboxStoreCapabilities,
  PageReport,
  RangeScanOutcome,
  RangeScanPage,
  RangeScanRead,
  ShardEpoch,
  ShardFrontier,
} from '@qim/store-core';
import type { ScyllaSession } from '../session/scylla-session';
import { DEFAULT_MAX_IN_FLIGHT, InFlightLimit } from '../session/in-flight-limit';
import { CqlRunner } from '../session/cql-runner';
import { StatementCounter } from '../session/statement-counter';
import type { MailboxContext } from './context/mailbox-context';
import { applyPage } from './page/apply-page';
import { readFrontier } from './page/frontier';
import { KnownFrontier } from './context/known-frontier';
import type { ScyllaMailboxFaults } from './context/scylla-mailbox-faults';
import { prepareEntries, writeEntries } from './retention/append-entries';
import { MAX_CQL_TTL_SECONDS } from './retention/entry-ttl';
import { rangeScan } from './retention/range-scan';
import { DEFAULT_REGISTERED_DAYS_USERS, RegisteredDays } from './context/registered-days';
import { truncateBefore } from './retention/trim';

/** Construction parameters of a `ScyllaMailboxStore`. `shardEpoch` and `gc` are explicit (no hidden defaults). */
export interface ScyllaMailboxStoreOptions {
  /** A connected session whose keyspace was created/verified by `migrate` (the store never touches schema). */
  readonly session: ScyllaSession;
  readonly shardEpoch: ShardEpoch;
  readonly gc: MailboxGcConfig;
  /**
   * The deployment's clock-skew bound (ms, `QIM_CLOCK_SKEW_MS`): how far any two clocks involved
   * (service processes, database nodes) may disagree. A range scan whose read overlaps a ledger day
   * expiring within `readerExpiryMarginMs` (1 s + 2 × this) waits for the expiry and inspects
   * again; the no-LWT fast path keeps this much (plus one hour) away from a day's expiry; the entry
   * retention must fit the ledger (`checkMailboxRetention`). Default 0: still 1 s of margin.
   */
  readonly clockSkewAllowanceMs?: bigint;
  /**
   * Most statements this store has in flight at once (`QIM_MAILBOX_APPLY_CONCURRENCY`, default 64,
   * 1…1024): further statements wait for a slot (backpressure), so a huge page never saturates the
   * driver and reads keep their share of the connection pool.
   */
  readonly maxStatementsInFlight?: number;
  /**
   * How long (s) a bucket proof lives once its day is consumed (ADR-0022 §6; default one day, 1 … 20
   * years). Only tests shorten it, to watch released proofs disappear on real server time.
   */
  readonly releasedProofTtlSeconds?: number;
  /** Users whose registered ledger days the store remembers (default 100,000; least recently used leave). */
  readonly registeredDaysCacheSize?: number;
  /** Counts every statement by name and the requests in flight (benchmarks, tests); default a private one (`statements`). */
  readonly counter?: StatementCounter;
  /** Simulated crash points of `applyPage` (the contract harness; tests only). */
  readonly faults?: ScyllaMailboxFaults;
  /** Wall clock used for expiries and TTLs (default the system clock). */
  readonly clock?: Clock;
}

/** Default lifetime of a released bucket proof: one day after its day was consumed. */
export const DEFAULT_RELEASED_PROOF_TTL_SECONDS = 86_400;

function checkReleasedProofTtl(s: number): number {
  if (!Number.isInteger(s) || s < 1 || s > MAX_CQL_TTL_SECONDS)
    throw new InvalidInputError(`releasedProofTtlSeconds must be an integer 1…${MAX_CQL_TTL_SECONDS}: ${s}`);
  return s;
}

/**
 * The Scylla/Cassandra `MailboxStore` in the shard-frontier layout (ADR-0022): per-user entries with
 * a fixed absolute TTL and the V4 retention proof, a dispatch index and a shard frontier ordered by
 * write timestamps. Prepared statements at LOCAL_QUORUM; the only LWTs are the user's retention meta
 * (when its ledger must change) and trim (LOCAL_SERIAL). No statement of this store deletes anything.
 */
export class ScyllaMailboxStore implements MailboxStore {
  readonly shardEpoch: ShardEpoch;
  readonly capabilities: MailboxStoreCapabilities = Object.freeze({ injectableClock: false });
  private readonly ctx: MailboxContext;
  /** The same context whose statements wait ahead of the writers' (syncs are never starved by a page). */
  private readonly readerCtx: MailboxContext;

  /** Every statement this store ran, by name (LWTs apart), and its requests in flight. */
  readonly statements: StatementCounter;

  constructor(options: ScyllaMailboxStoreOptions) {
    const { shard, epoch } = options.shardEpoch;
    if (!Number.isInteger(shard) || shard < 0 || shard > 0xffff || !Number.isInteger(epoch) || epoch < 0 || epoch > 0xffff) {
      throw new InvalidInputError(`shard and epoch must be integers 0…65535: ${shard}/${epoch}`);
    }
    assertU64(options.gc.entryRetentionMs, 'entry retention');
    assertU64(options.gc.dispatchDedupeMs, 'dispatch dedupe window');
    checkMailboxRetention(options.gc.entryRetentionMs, options.clockSkewAllowanceMs ?? 0n);
    this.shardEpoch = Object.freeze({ shard, epoch });
    const limit = new InFlightLimit(options.maxStatementsInFlight ?? DEFAULT_MAX_IN_FLIGHT);
    this.statements = options.counter ?? new StatementCounter();
    this.ctx = Object.freeze({
      cql: new CqlRunner(options.session.client, options.session.config.keyspace, this.statements, limit),
      shardEpoch: this.shardEpoch,
      gc: Object.freeze({ entryRetentionMs: options.gc.entryRetentionMs, dispatchDedupeMs: options.gc.dispatchDedupeMs }),
      clock: options.clock ?? systemClock,
      clockSkewAllowanceMs: assertU64(options.clockSkewAllowanceMs ?? 0n, 'clock skew allowance'),
      releasedProofTtlSeconds: checkReleasedProofTtl(options.releasedProofTtlSeconds ?? DEFAULT_RELEASED_PROOF_TTL_SECONDS),
      registered: new RegisteredDays(options.registeredDaysCacheSize ?? DEFAULT_REGISTERED_DAYS_USERS),
      knownFrontier: new KnownFrontier(),
      faults: options.faults ? Object.freeze({ ...options.faults }) : null,
    });
    this.readerCtx = Object.freeze({ ...this.ctx, cql: this.ctx.cql.forReaders() });
  }

  async appendBatch(entries: readonly MailboxEntryInput[]): Promise<AppendReport> {
    return writeEntries(this.ctx, prepareEntries(this.ctx, entries));
  }

  rangeScan(tenantId: Id128, userId: Id128, after: bigint, upTo: bigint, limit: number, maxBytes?: number): Promise<RangeScanPage> {
    return rangeScan(this.readerCtx, tenantId, userId, after, upTo, limit, maxBytes);
  }

  /** Every read's statements go out together (each read's own steps stay in their order). */
  rangeScanMany(reads: readonly RangeScanRead[]): Promise<RangeScanOutcome[]> {
    return rangeScanEach(reads, (r) => rangeScan(this.readerCtx, r.tenantId, r.userId, r.after, r.upTo, r.limit, r.maxBytes));
  }

  truncateBefore(tenantId: Id128, userId: Id128, seq: bigint): Promise<void> {
    return truncateBefore(this.readerCtx, tenantId, userId, seq);
  }

  applyPage(page: DispatchPage): Promise<PageReport> {
    return applyPage(this.ctx, page);
  }

  async frontier(): Promise<ShardFrontier> {
    const offset = await readFrontier(this.readerCtx.cql, this.shardEpoch);
    this.ctx.knownFrontier.raise(offset);
    return { offset };
  }

  /** Highest number of statements this store has had in flight at once (never above its bound). */
  get peakStatementsInFlight(): number {
    return this.ctx.cql.limit.peak;
  }

  /** The session belongs to its owner (it may serve several stores); closing a store releases nothing of it. */
  async close(): Promise<void> {
    return Promise.resolve();
  }
}
