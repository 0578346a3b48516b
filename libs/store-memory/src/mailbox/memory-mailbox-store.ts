import { DAY_MS, InvalidInputError, UnavailableError, assertU64, checkMailboxRetention, rangeScanEach } from '@qim/store-core';
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
import { appendEntries, raiseTrim, scanEntries } from './mailbox-entries';
import { applyPage, readFrontier } from './mailbox-page';
import type { MemoryMailboxFaults } from './memory-mailbox-faults';
import type { MailboxScope } from './mailbox-scope';
import { MemoryMailboxBackend } from './memory-mailbox-backend';

export interface MemoryMailboxStoreOptions {
  /** The shard (dispatch partition) and epoch this store serves. */
  readonly shardEpoch: ShardEpoch;
  /** Explicit retention and dedupe parameters. */
  readonly gc: MailboxGcConfig;
  /** Time source for every expiry decision (a `ManualClock` in tests). */
  readonly clock: Clock;
  /** Shared storage (several stores, also of one `ShardEpoch`, may open one); a fresh one when omitted. */
  readonly backend?: MemoryMailboxBackend;
  /** Lifetime of a released bucket proof after its day was consumed (ADR-0022 §6); default one day. */
  readonly releasedProofTtlMs?: bigint;
  /** Expired rows are physically dropped at most this often (store clock ms), from `appendBatch` and `applyPage`; default one minute. */
  readonly sweepEveryMs?: bigint;
  /** At most this many expired rows dropped per sweep (the rest at the next); default 10 000. */
  readonly sweepMaxRows?: number;
  /** Simulated crash points of `applyPage` (contract tests only; production passes none). */
  readonly faults?: MemoryMailboxFaults;
}

function checkConfig(o: MemoryMailboxStoreOptions): void {
  const { shard, epoch } = o.shardEpoch;
  if (!Number.isInteger(shard) || shard < 0 || shard > 0xffff) throw new InvalidInputError(`shard must be 0…65535: ${shard}`);
  if (!Number.isInteger(epoch) || epoch < 0 || epoch > 0xffff) throw new InvalidInputError(`epoch must be 0…65535: ${epoch}`);
  assertU64(o.gc.entryRetentionMs, 'entryRetentionMs');
  assertU64(o.gc.dispatchDedupeMs, 'dispatchDedupeMs');
  checkMailboxRetention(o.gc.entryRetentionMs, 0n);
  if (o.releasedProofTtlMs !== undefined && (typeof o.releasedProofTtlMs !== 'bigint' || o.releasedProofTtlMs < 1n))
    throw new InvalidInputError('releasedProofTtlMs must be ≥ 1');
  if (o.releasedProofTtlMs !== undefined) assertU64(o.releasedProofTtlMs, 'releasedProofTtlMs');
  if (o.sweepEveryMs !== undefined) assertU64(o.sweepEveryMs, 'sweepEveryMs');
  if (o.sweepMaxRows !== undefined && (!Number.isInteger(o.sweepMaxRows) || o.sweepMaxRows < 1))
    throw new InvalidInputError(`sweepMaxRows must be an integer ≥ 1: ${o.sweepMaxRows}`);
}

/**
 * The reference MailboxStore (ADR-0022): the V4 retention proof, the shard frontier (a max) and the
 * dispatch index (lowest offset wins, remembered until `createdAt + dispatchDedupeMs`) over
 * in-process tables that hold the same facts and encoded bytes as the Scylla schema. One entry's
 * steps run without interleaving; `applyPage` yields between its steps so concurrent stores of one
 * shard interleave like zombie workers. Expired rows (entries, dispatch-index rows, released bucket
 * proofs) are invisible to reads at once and physically dropped by a bounded sweep that `appendBatch`
 * and `applyPage` run at most every `sweepEveryMs`, so the maps stay bounded like a server's TTLs.
 */
export class MemoryMailboxStore implements MailboxStore {
  readonly capabilities: MailboxStoreCapabilities = Object.freeze({ injectableClock: true });
  readonly shardEpoch: ShardEpoch;
  readonly backend: MemoryMailboxBackend;
  private readonly scope: MailboxScope;
  private readonly faults: MemoryMailboxFaults;
  private readonly sweepEveryMs: bigint;
  private readonly sweepMaxRows: number;
  private closed = false;

  constructor(options: MemoryMailboxStoreOptions) {
    checkConfig(options);
    this.shardEpoch = Object.freeze({ ...options.shardEpoch });
    this.backend = options.backend ?? new MemoryMailboxBackend();
    this.faults = Object.freeze({ ...options.faults });
    this.sweepEveryMs = options.sweepEveryMs ?? 60_000n;
    this.sweepMaxRows = options.sweepMaxRows ?? 10_000;
    this.scope = Object.freeze({
      backend: this.backend,
      shardEpoch: this.shardEpoch,
      gc: Object.freeze({ ...options.gc }),
      clock: options.clock,
      releasedProofTtlMs: options.releasedProofTtlMs ?? DAY_MS,
    });
  }

  async appendBatch(entries: readonly MailboxEntryInput[]): Promise<AppendReport> {
    this.sweepIfDue();
    return appendEntries(this.open(), entries);
  }

  async rangeScan(tenantId: Id128, userId: Id128, after: bigint, upTo: bigint, limit: number, maxBytes?: number): Promise<RangeScanPage> {
    return scanEntries(this.open(), tenantId, userId, after, upTo, limit, maxBytes);
  }

  /** Each read as its own `rangeScan`, one after the other (no interleaving: the reads of one call see one state). */
  rangeScanMany(reads: readonly RangeScanRead[]): Promise<RangeScanOutcome[]> {
    return rangeScanEach(reads, async (r) => scanEntries(this.open(), r.tenantId, r.userId, r.after, r.upTo, r.limit, r.maxBytes));
  }

  async truncateBefore(tenantId: Id128, userId: Id128, seq: bigint): Promise<void> {
    raiseTrim(this.open(), tenantId, userId, seq);
  }

  async applyPage(page: DispatchPage): Promise<PageReport> {
    this.sweepIfDue();
    return applyPage(this.open(), page, this.faults);
  }

  async frontier(): Promise<ShardFrontier> {
    return { offset: readFrontier(this.open()) };
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** The time-throttled bounded sweep (a sweep that left expired rows behind runs again at the next call). */
  private sweepIfDue(): void {
    const s = this.open();
    const now = s.clock.nowMs();
    const last = s.backend.lastSweepAt;
    if (last !== null && now >= last && now - last < this.sweepEveryMs) return;
    if (!s.backend.sweep(now, this.sweepMaxRows).more) s.backend.lastSweepAt = now;
  }

  private open(): MailboxScope {
    if (this.closed) throw new UnavailableError('the MemoryMailboxStore is closed');
    return this.scope;
  }
}
