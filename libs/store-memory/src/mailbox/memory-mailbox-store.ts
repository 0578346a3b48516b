import { InvalidInputError, UnavailableError, assertU64 } from '@qim/store-core';
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
import * as dispatch from './mailbox-dispatch';
import { appendEntries, raiseTrim, scanEntries } from './mailbox-entries';
import { gcCompletedDispatches } from './mailbox-gc';
import type { MailboxScope } from './mailbox-scope';
import * as watermarks from './mailbox-watermarks';
import { MemoryMailboxBackend } from './memory-mailbox-backend';

export interface MemoryMailboxStoreOptions {
  /** The shard (dispatch partition) and epoch this store serves. */
  readonly shardEpoch: ShardEpoch;
  /** Explicit retention and GC parameters. */
  readonly gc: MailboxGcConfig;
  /** Time source for every expiry decision (a `ManualClock` in tests). */
  readonly clock: Clock;
  /** Shared storage (several stores of different epochs may open one); a fresh one when omitted. */
  readonly backend?: MemoryMailboxBackend;
}

function checkConfig(o: MemoryMailboxStoreOptions): void {
  const { shard, epoch } = o.shardEpoch;
  if (!Number.isInteger(shard) || shard < 0 || shard > 0xffff) throw new InvalidInputError(`shard must be 0…65535: ${shard}`);
  if (!Number.isInteger(epoch) || epoch < 0 || epoch > 0xffff) throw new InvalidInputError(`epoch must be 0…65535: ${epoch}`);
  assertU64(o.gc.entryRetentionMs, 'entryRetentionMs');
  assertU64(o.gc.dispatchGcDelayMs, 'dispatchGcDelayMs');
}

/**
 * The reference MailboxStore: every rule of the contract (V4 retention proof, dispatch duplicate
 * log, lane sources, watermarks, phased GC with one fixed deadline) over in-process tables that
 * hold the same facts and encoded bytes as the Scylla schema. Each operation runs to completion
 * without interleaving, which is what the conditional writes of the real backends guarantee.
 */
export class MemoryMailboxStore implements MailboxStore {
  readonly capabilities: MailboxStoreCapabilities = Object.freeze({ injectableClock: true });
  readonly shardEpoch: ShardEpoch;
  readonly backend: MemoryMailboxBackend;
  private readonly scope: MailboxScope;
  private closed = false;

  constructor(options: MemoryMailboxStoreOptions) {
    checkConfig(options);
    this.shardEpoch = Object.freeze({ ...options.shardEpoch });
    this.backend = options.backend ?? new MemoryMailboxBackend();
    this.scope = Object.freeze({ backend: this.backend, shardEpoch: this.shardEpoch, gc: Object.freeze({ ...options.gc }), clock: options.clock });
  }

  async appendBatch(entries: readonly MailboxEntryInput[]): Promise<AppendReport> {
    return appendEntries(this.open(), entries);
  }

  async rangeScan(tenantId: Id128, userId: Id128, after: bigint, upTo: bigint, limit: number): Promise<RangeScanPage> {
    return scanEntries(this.open(), tenantId, userId, after, upTo, limit);
  }

  async truncateBefore(tenantId: Id128, userId: Id128, seq: bigint): Promise<void> {
    raiseTrim(this.open(), tenantId, userId, seq);
  }

  async beginDispatch(dispatchId: Id128, observedOffset: bigint, manifest: DispatchManifest, digest: Uint8Array): Promise<DispatchReceipt> {
    return dispatch.beginDispatch(this.open(), dispatchId, observedOffset, manifest, digest);
  }

  async appendChunk(receipt: DispatchReceipt, lane: number, chunkId: number, entries: readonly MailboxEntryInput[]): Promise<AppendReport> {
    return dispatch.appendChunk(this.open(), receipt, lane, chunkId, entries);
  }

  async markChunkCompleted(receipt: DispatchReceipt, lane: number, chunkId: number): Promise<void> {
    dispatch.markChunkCompleted(this.open(), receipt, lane, chunkId);
  }

  async chunkCompleted(dispatchId: Id128, lane: number, chunkId: number): Promise<boolean> {
    return dispatch.chunkCompleted(this.open(), dispatchId, lane, chunkId);
  }

  async dispatchProgress(dispatchId: Id128): Promise<DispatchProgress | null> {
    return dispatch.dispatchProgress(this.open(), dispatchId);
  }

  async laneWatermark(lane: number): Promise<LaneWatermark> {
    return watermarks.laneWatermark(this.open(), lane);
  }

  async advanceWatermark(lane: number, expectedPrev: bigint | null, offset: bigint): Promise<LaneWatermark> {
    return watermarks.advanceWatermark(this.open(), lane, expectedPrev, offset);
  }

  async advanceFloor(lane: number, expectedFloor: bigint | null, newFloor: bigint): Promise<LaneWatermark> {
    return watermarks.advanceFloor(this.open(), lane, expectedFloor, newFloor);
  }

  async gcCompletedDispatches(cutoffMs: bigint, limit: number): Promise<HousekeepingReport> {
    return gcCompletedDispatches(this.open(), cutoffMs, limit);
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private open(): MailboxScope {
    if (this.closed) throw new UnavailableError('the MemoryMailboxStore is closed');
    return this.scope;
  }
}
