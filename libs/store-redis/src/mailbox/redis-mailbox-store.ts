import { InvalidInputError, MAX_MAILBOX_EPOCH } from '@qim/store-core';
import type {
  AppendReport,
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
import { RedisKeys } from '../keys/redis-keys';
import { RedisIo } from '../redis/redis-io';
import { releaseConnection, resolveGrace } from '../redis/store-options';
import type { RedisStoreOptions } from '../redis/store-options';
import { RedisDispatchGc } from './redis-dispatch-gc';
import { RedisDispatchOps } from './redis-dispatch-ops';
import { RedisMailboxEntries } from './redis-mailbox-entries';
import { RedisWatermarks } from './redis-watermarks';

export interface RedisMailboxStoreOptions extends RedisStoreOptions {
  readonly shardEpoch: ShardEpoch;
  readonly gc: MailboxGcConfig;
}

function checkConfig(se: ShardEpoch, gc: MailboxGcConfig): void {
  if (!Number.isInteger(se.shard) || se.shard < 0 || se.shard > 0xffff) throw new InvalidInputError(`shard must be 0…65535: ${se.shard}`);
  if (!Number.isInteger(se.epoch) || se.epoch < 0 || se.epoch > MAX_MAILBOX_EPOCH) throw new InvalidInputError(`epoch must be 0…${MAX_MAILBOX_EPOCH}: ${se.epoch}`);
  if (gc.entryRetentionMs < 0n || gc.dispatchGcDelayMs < 0n) throw new InvalidInputError('mailbox retention and GC delay must be ≥ 0');
}

/**
 * `MailboxStore` over Redis for one `ShardEpoch`. Per-user facts live under the user's hash tag,
 * every dispatch fact of the shard under the shard's tag (see `RedisKeys`); logical time comes from
 * the injected clock.
 */
export class RedisMailboxStore implements MailboxStore {
  readonly capabilities: MailboxStoreCapabilities = Object.freeze({ injectableClock: true });
  readonly shardEpoch: ShardEpoch;
  readonly io: RedisIo;
  readonly keys: RedisKeys;
  private readonly entries: RedisMailboxEntries;
  private readonly dispatches: RedisDispatchOps;
  private readonly watermarks: RedisWatermarks;
  private readonly gc: RedisDispatchGc;

  constructor(private readonly options: RedisMailboxStoreOptions) {
    checkConfig(options.shardEpoch, options.gc);
    this.shardEpoch = Object.freeze({ ...options.shardEpoch });
    this.io = new RedisIo(options.redis);
    this.keys = new RedisKeys(options.namespace);
    const grace = resolveGrace(options);
    const { clock } = options;
    const shardKeys = this.keys.shard(this.shardEpoch.shard);
    this.entries = new RedisMailboxEntries({ io: this.io, keys: this.keys, clock, shardEpoch: this.shardEpoch, gc: options.gc, physicalGraceMs: grace });
    this.dispatches = new RedisDispatchOps(this.io, shardKeys, clock, this.shardEpoch, this.entries);
    this.watermarks = new RedisWatermarks(this.io, shardKeys, clock);
    this.gc = new RedisDispatchGc(this.io, shardKeys, clock, options.gc, grace);
  }

  appendBatch(entries: readonly MailboxEntryInput[]): Promise<AppendReport> {
    return this.entries.appendBatch(entries);
  }

  rangeScan(tenantId: Id128, userId: Id128, after: bigint, upTo: bigint, limit: number): Promise<RangeScanPage> {
    return this.entries.rangeScan(tenantId, userId, after, upTo, limit);
  }

  truncateBefore(tenantId: Id128, userId: Id128, seq: bigint): Promise<void> {
    return this.entries.truncateBefore(tenantId, userId, seq);
  }

  beginDispatch(dispatchId: Id128, observedOffset: bigint, manifest: DispatchManifest, digest: Uint8Array): Promise<DispatchReceipt> {
    return this.dispatches.beginDispatch(dispatchId, observedOffset, manifest, digest);
  }

  appendChunk(receipt: DispatchReceipt, lane: number, chunkId: number, entries: readonly MailboxEntryInput[]): Promise<AppendReport> {
    return this.dispatches.appendChunk(receipt, lane, chunkId, entries);
  }

  markChunkCompleted(receipt: DispatchReceipt, lane: number, chunkId: number): Promise<void> {
    return this.dispatches.markChunkCompleted(receipt, lane, chunkId);
  }

  chunkCompleted(dispatchId: Id128, lane: number, chunkId: number): Promise<boolean> {
    return this.dispatches.chunkCompleted(dispatchId, lane, chunkId);
  }

  dispatchProgress(dispatchId: Id128): Promise<DispatchProgress | null> {
    return this.dispatches.dispatchProgress(dispatchId);
  }

  laneWatermark(lane: number): Promise<LaneWatermark> {
    return this.watermarks.laneWatermark(lane);
  }

  advanceWatermark(lane: number, expectedPrev: bigint | null, offset: bigint): Promise<LaneWatermark> {
    return this.watermarks.advanceWatermark(lane, expectedPrev, offset);
  }

  advanceFloor(lane: number, expectedFloor: bigint | null, newFloor: bigint): Promise<LaneWatermark> {
    return this.watermarks.advanceFloor(lane, expectedFloor, newFloor);
  }

  gcCompletedDispatches(cutoffMs: bigint, limit: number): Promise<HousekeepingReport> {
    return this.gc.gcCompletedDispatches(cutoffMs, limit);
  }

  close(): Promise<void> {
    return releaseConnection(this.options);
  }
}
