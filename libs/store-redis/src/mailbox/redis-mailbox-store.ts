import { InvalidInputError, MAX_MAILBOX_EPOCH, checkMailboxRetention } from '@qim/store-core';
import type {
  AppendReport,
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
import { RedisKeys } from '../keys/redis-keys';
import { RedisIo } from '../redis/redis-io';
import { releaseConnection, resolveGrace } from '../redis/store-options';
import type { RedisStoreOptions } from '../redis/store-options';
import type { MailboxFaults } from './redis-mailbox-faults';
import { MetaCache } from './meta-cache';
import { groupByUser, prepareEntry } from './prepared-entry';
import { RedisMailboxReads } from './redis-mailbox-reads';
import { RedisPageApplier } from './redis-page-applier';
import { RedisRetentionInspector } from './redis-retention-inspector';
import { RedisUserAppender } from './redis-user-appender';
import { WarmDays, connectionGeneration } from './warm-days';
import { EncodedEvalshaSender } from '../redis/encoded-evalsha';
import { UserKeysCache } from './user-keys-cache';

/** Default bound of append-script calls in flight per page or batch. */
export const DEFAULT_MAILBOX_APPLY_CONCURRENCY = 64;
/** Default number of users whose retention meta a store remembers. */
export const DEFAULT_META_CACHE_USERS = 100_000;

export interface RedisMailboxStoreOptions extends RedisStoreOptions {
  readonly shardEpoch: ShardEpoch;
  readonly gc: MailboxGcConfig;
  /** Append-script calls (one per mailbox bucket touched) in flight at most while a page or batch is written (default 64). */
  readonly applyConcurrency?: number;
  /** Users whose retention meta (and key names) the store remembers to plan appends without a read (default 100 000). */
  readonly metaCacheUsers?: number;
  /** Simulated crash points inside `applyPage` (tests only). */
  readonly faults?: MailboxFaults;
  /**
   * Whether warm users' entries may skip the append script (`WarmDays`, ADR-0022 §5; default true).
   * Only on a standalone client without a key prefix; false sends every entry through the script.
   */
  readonly plainPath?: boolean;
  /**
   * The deployment's clock-skew bound (ms, `QIM_CLOCK_SKEW_MS`, default 0): how far any two clocks
   * involved (service processes, the Redis host) may disagree. Every fast path (the append script's,
   * the plain path) keeps it plus one hour from an expiry, as the Scylla store does.
   */
  readonly clockSkewAllowanceMs?: bigint;
}

function positiveInt(v: number | undefined, fallback: number, what: string): number {
  const n = v ?? fallback;
  if (!Number.isInteger(n) || n < 1) throw new InvalidInputError(`${what} must be an integer ≥ 1: ${n}`);
  return n;
}

function checkConfig(se: ShardEpoch, gc: MailboxGcConfig): void {
  if (!Number.isInteger(se.shard) || se.shard < 0 || se.shard > 0xffff) throw new InvalidInputError(`shard must be 0…65535: ${se.shard}`);
  if (!Number.isInteger(se.epoch) || se.epoch < 0 || se.epoch > MAX_MAILBOX_EPOCH)
    throw new InvalidInputError(`epoch must be 0…${MAX_MAILBOX_EPOCH}: ${se.epoch}`);
  if (typeof gc.entryRetentionMs !== 'bigint' || typeof gc.dispatchDedupeMs !== 'bigint' || gc.entryRetentionMs < 0n || gc.dispatchDedupeMs < 0n) {
    throw new InvalidInputError('mailbox entryRetentionMs and dispatchDedupeMs must be bigints ≥ 0');
  }
  checkMailboxRetention(gc.entryRetentionMs, 0n);
}

/**
 * `MailboxStore` over Redis for one `ShardEpoch` (ADR-0022). Per-user facts live under the user's
 * mailbox bucket tag (`mb:<bucket>`, shared by 1/256 of the users, so one append call carries every
 * user of a bucket a page touches), the shard frontier and dispatch index under the shard's tag
 * (see `RedisKeys`); every script touches one tag. Logical time comes from the injected clock.
 */
export class RedisMailboxStore implements MailboxStore {
  readonly capabilities: MailboxStoreCapabilities = Object.freeze({ injectableClock: true });
  readonly shardEpoch: ShardEpoch;
  readonly io: RedisIo;
  readonly keys: RedisKeys;
  private readonly gc: MailboxGcConfig;
  private readonly graceMs: bigint;
  private readonly appender: RedisUserAppender;
  private readonly reads: RedisMailboxReads;
  private readonly pages: RedisPageApplier;

  constructor(private readonly options: RedisMailboxStoreOptions) {
    checkConfig(options.shardEpoch, options.gc);
    this.shardEpoch = Object.freeze({ ...options.shardEpoch });
    this.gc = Object.freeze({ ...options.gc });
    this.io = new RedisIo(options.redis, { namespace: options.namespace, ...(options.replicaAcks === undefined ? {} : { replicaAcks: options.replicaAcks }) });
    this.keys = new RedisKeys(options.namespace);
    const graceMs = resolveGrace(options);
    this.graceMs = graceMs;
    const { clock } = options;
    const { epoch } = this.shardEpoch;
    const cacheUsers = positiveInt(options.metaCacheUsers, DEFAULT_META_CACHE_USERS, 'metaCacheUsers');
    const cache = new MetaCache(cacheUsers, clock);
    const userKeys = new UserKeysCache(this.keys, cacheUsers);
    const inspector = new RedisRetentionInspector(this.io, this.keys, graceMs, options.faults);
    const concurrency = positiveInt(options.applyConcurrency, DEFAULT_MAILBOX_APPLY_CONCURRENCY, 'applyConcurrency');
    // a lost connection may be a restarted server that lost recent writes: learn again through the script
    const warm =
      options.plainPath !== false && EncodedEvalshaSender.usableOn(options.redis) ? new WarmDays(cacheUsers, connectionGeneration(options.redis)) : null;
    const clockSkewAllowanceMs = options.clockSkewAllowanceMs ?? 0n;
    if (typeof clockSkewAllowanceMs !== 'bigint' || clockSkewAllowanceMs < 0n)
      throw new InvalidInputError(`clockSkewAllowanceMs must be a bigint ≥ 0: ${String(clockSkewAllowanceMs)}`);
    this.appender = new RedisUserAppender({ io: this.io, clock, epoch, graceMs, clockSkewAllowanceMs, concurrency, cache, userKeys, inspector, warm });
    this.reads = new RedisMailboxReads({ io: this.io, keys: this.keys, clock, epoch, cache, inspector });
    this.pages = new RedisPageApplier({
      io: this.io,
      keys: this.keys.shardFrontier(this.shardEpoch.shard, epoch),
      clock,
      shardEpoch: this.shardEpoch,
      gc: this.gc,
      graceMs,
      appender: this.appender,
      userKeys,
      faults: options.faults,
    });
  }

  /** Validates every group first (one bad group → nothing written), then one pipelined script per mailbox bucket; a replay replaces the group. */
  async appendBatch(entries: readonly MailboxEntryInput[]): Promise<AppendReport> {
    const groups = groupByUser(entries.map((e) => prepareEntry(e, this.shardEpoch.epoch, this.gc.entryRetentionMs, this.graceMs)));
    const report = await this.appender.append(groups, 'replace');
    await this.io.replicated('all', 'appendBatch');
    return report;
  }

  rangeScan(tenantId: Id128, userId: Id128, after: bigint, upTo: bigint, limit: number, maxBytes?: number): Promise<RangeScanPage> {
    return this.reads.rangeScan(tenantId, userId, after, upTo, limit, maxBytes);
  }

  /** One pipelined write of one-tag scan scripts (a Cluster client sends each to its node). */
  rangeScanMany(reads: readonly RangeScanRead[]): Promise<RangeScanOutcome[]> {
    return this.reads.rangeScanMany(reads);
  }

  truncateBefore(tenantId: Id128, userId: Id128, seq: bigint): Promise<void> {
    return this.reads.truncateBefore(tenantId, userId, seq);
  }

  /**
   * With replica acks (ADR-0038), the page is reported applied — and its Kafka offset committable —
   * only once every primary this client wrote to has it on enough replicas: a frontier or entries
   * only the old primary held must not let the offset move past what the promoted replica lacks.
   */
  async applyPage(page: DispatchPage): Promise<PageReport> {
    const report = await this.pages.applyPage(page);
    await this.io.replicated('all', 'applyPage');
    return report;
  }

  frontier(): Promise<ShardFrontier> {
    return this.pages.frontier();
  }

  close(): Promise<void> {
    return releaseConnection(this.options);
  }
}
