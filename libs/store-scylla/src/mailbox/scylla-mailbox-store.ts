import { InvalidInputError, assertU64, systemClock } from '@qim/store-core';
import type {
  AppendReport,
  Clock,
  DispatchManifest,
  DispatchProgress,
  DispatchReceipt,
  HousekeepingReport,
  Id128,
  LaneWatermark,
  MailboxEntryInput,
  MailboxGcConfig,
  MailboxStore,
  MailboxStoreCapabilities,
  RangeScanPage,
  ShardEpoch,
} from '@qim/store-core';
import type { ScyllaSession } from '../session/scylla-session';
import { MailboxCql } from './cql/mailbox-cql';
import type { StatementCounter } from './cql/statement-counter';
import { beginDispatch } from './dispatch/begin-dispatch';
import { appendChunk, chunkCompleted, dispatchProgress, markChunkCompleted } from './dispatch/chunk-ops';
import { advanceFloor, advanceWatermark, laneWatermark } from './dispatch/lane-watermark';
import { gcCompletedDispatches } from './gc/gc-pass';
import type { GcStepHook } from './gc/gc-steps';
import type { MailboxContext } from './mailbox-context';
import { prepareEntries, writeEntries } from './retention/append-entries';
import { rangeScan } from './retention/range-scan';
import { truncateBefore } from './retention/trim';

/** Construction parameters of a `ScyllaMailboxStore`. `shardEpoch` and `gc` are explicit (no hidden defaults). */
export interface ScyllaMailboxStoreOptions {
  /** A connected session whose keyspace was created/verified by `migrate` (the store never touches schema). */
  readonly session: ScyllaSession;
  readonly shardEpoch: ShardEpoch;
  readonly gc: MailboxGcConfig;
  /**
   * How far (ms) the servers' clocks may run ahead of this process's clock. A range scan whose read
   * overlaps a ledger day expiring within this margin waits for the expiry and inspects again, so a
   * TTL that fired early on a fast server clock never passes as "covered". Default 0 (synchronised
   * clocks); set it to the deployment's NTP bound.
   */
  readonly clockSkewAllowanceMs?: bigint;
  /** Concurrent per-user writes of a batch/chunk and lane-source writes of an observation (default 16). */
  readonly writeConcurrency?: number;
  /** Concurrent row rewrites in one GC phase (default 16). */
  readonly gcConcurrency?: number;
  /** Counts every statement by name (benchmarks, tests). */
  readonly counter?: StatementCounter;
  /** Internal fault-injection seam: called after every durable GC step. Tests only. */
  readonly gcStepHook?: GcStepHook;
  /** Wall clock used for expiries, last-seen times and GC deadlines (default the system clock). */
  readonly clock?: Clock;
}

function positiveInt(v: number | undefined, fallback: number, what: string): number {
  const n = v ?? fallback;
  if (!Number.isInteger(n) || n < 1 || n > 1024) throw new InvalidInputError(`${what} must be an integer 1…1024: ${n}`);
  return n;
}

/**
 * The Scylla/Cassandra `MailboxStore` (seed "MailboxStore schema 与操作"): per-user entries with a
 * fixed absolute TTL and the V4 retention proof, plus the seed's dispatch/lane/watermark bookkeeping
 * and its phased, fixed-deadline TTL GC. Prepared statements at LOCAL_QUORUM; only first facts and
 * ordered moves are LWTs (LOCAL_SERIAL). No statement of this store deletes anything.
 */
export class ScyllaMailboxStore implements MailboxStore {
  readonly shardEpoch: ShardEpoch;
  readonly capabilities: MailboxStoreCapabilities = Object.freeze({ injectableClock: false });
  private readonly ctx: MailboxContext;

  constructor(options: ScyllaMailboxStoreOptions) {
    const { shard, epoch } = options.shardEpoch;
    if (!Number.isInteger(shard) || shard < 0 || shard > 0xffff || !Number.isInteger(epoch) || epoch < 0 || epoch > 0xffff) {
      throw new InvalidInputError(`shard and epoch must be integers 0…65535: ${shard}/${epoch}`);
    }
    assertU64(options.gc.entryRetentionMs, 'entry retention');
    assertU64(options.gc.dispatchGcDelayMs, 'dispatch GC delay');
    this.shardEpoch = Object.freeze({ shard, epoch });
    this.ctx = Object.freeze({
      cql: new MailboxCql(options.session.client, options.session.config.keyspace, options.counter ?? null),
      shardEpoch: this.shardEpoch,
      gc: Object.freeze({ ...options.gc }),
      clock: options.clock ?? systemClock,
      clockSkewAllowanceMs: assertU64(options.clockSkewAllowanceMs ?? 0n, 'clock skew allowance'),
      writeConcurrency: positiveInt(options.writeConcurrency, 16, 'writeConcurrency'),
      gcConcurrency: positiveInt(options.gcConcurrency, 16, 'gcConcurrency'),
      gcStepHook: options.gcStepHook ?? null,
    });
  }

  async appendBatch(entries: readonly MailboxEntryInput[]): Promise<AppendReport> {
    return writeEntries(this.ctx, prepareEntries(this.ctx, entries));
  }

  rangeScan(tenantId: Id128, userId: Id128, after: bigint, upTo: bigint, limit: number): Promise<RangeScanPage> {
    return rangeScan(this.ctx, tenantId, userId, after, upTo, limit);
  }

  truncateBefore(tenantId: Id128, userId: Id128, seq: bigint): Promise<void> {
    return truncateBefore(this.ctx, tenantId, userId, seq);
  }

  beginDispatch(dispatchId: Id128, observedOffset: bigint, manifest: DispatchManifest, digest: Uint8Array): Promise<DispatchReceipt> {
    return beginDispatch(this.ctx, dispatchId, observedOffset, manifest, digest);
  }

  appendChunk(receipt: DispatchReceipt, lane: number, chunkId: number, entries: readonly MailboxEntryInput[]): Promise<AppendReport> {
    return appendChunk(this.ctx, receipt, lane, chunkId, entries);
  }

  markChunkCompleted(receipt: DispatchReceipt, lane: number, chunkId: number): Promise<void> {
    return markChunkCompleted(this.ctx, receipt, lane, chunkId);
  }

  chunkCompleted(dispatchId: Id128, lane: number, chunkId: number): Promise<boolean> {
    return chunkCompleted(this.ctx, dispatchId, lane, chunkId);
  }

  dispatchProgress(dispatchId: Id128): Promise<DispatchProgress | null> {
    return dispatchProgress(this.ctx, dispatchId);
  }

  laneWatermark(lane: number): Promise<LaneWatermark> {
    return laneWatermark(this.ctx, lane);
  }

  advanceWatermark(lane: number, expectedPrev: bigint | null, offset: bigint): Promise<LaneWatermark> {
    return advanceWatermark(this.ctx, lane, expectedPrev, offset);
  }

  advanceFloor(lane: number, expectedFloor: bigint | null, newFloor: bigint): Promise<LaneWatermark> {
    return advanceFloor(this.ctx, lane, expectedFloor, newFloor);
  }

  gcCompletedDispatches(cutoffMs: bigint, limit: number): Promise<HousekeepingReport> {
    return gcCompletedDispatches(this.ctx, cutoffMs, limit);
  }

  /** The session belongs to its owner (it may serve several stores); closing a store releases nothing of it. */
  async close(): Promise<void> {
    return Promise.resolve();
  }
}
