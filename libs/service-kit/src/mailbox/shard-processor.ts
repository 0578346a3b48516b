import type { DispatchReceipt, DispatchRecord, LaneWatermark, MailboxEntryInput, MailboxStore } from '@qim/store-core';
import {
  InvariantViolationError,
  LANE_COUNT,
  WatermarkConflictError,
  WatermarkStalledError,
  buildManifest,
  manifestDigest,
} from '@qim/store-core';
import type { ServiceMetrics } from '../metrics/service-metrics';

export interface ShardProcessorOptions {
  readonly chunkSize: number;
  readonly metrics: ServiceMetrics;
  readonly now?: () => number;
}

/**
 * Applies dispatch records of one shard (one dispatch-topic partition) to its `MailboxStore`, in
 * offset order: manifest → `beginDispatch` → every lane in parallel (`appendChunk`,
 * `markChunkCompleted`, then `advanceWatermark`). Every step is idempotent, so a record read again
 * after a crash or rebalance converges to the same state. The Kafka offset that may be committed is
 * `min over lanes of W + 1` (`committable`).
 */
export class ShardProcessor {
  private readonly w: (bigint | null)[] = new Array<bigint | null>(LANE_COUNT).fill(null);
  private readonly stalled = new Set<number>();
  private loaded = false;
  private readonly now: () => number;

  constructor(
    readonly shard: number,
    readonly store: MailboxStore,
    private readonly opts: ShardProcessorOptions,
  ) {
    this.now = opts.now ?? Date.now;
  }

  /** Loads every lane's verified watermark (`WatermarkNotReadyError` propagates: not ready). */
  async load(): Promise<readonly LaneWatermark[]> {
    const lanes = await Promise.all(Array.from({ length: LANE_COUNT }, (_, lane) => this.store.laneWatermark(lane)));
    for (const l of lanes) this.setW(l.lane, l.w);
    this.loaded = true;
    return lanes;
  }

  private setW(lane: number, w: bigint | null): void {
    this.w[lane] = w;
    this.opts.metrics.laneWatermark.set({ shard: String(this.shard), lane: String(lane) }, w === null ? -1 : Number(w));
  }

  async process(offset: bigint, record: DispatchRecord): Promise<void> {
    if (record.shard !== this.shard) {
      throw new InvariantViolationError(`dispatch ${record.dispatchId} for shard ${record.shard} arrived in partition ${this.shard}`);
    }
    if (!this.loaded) await this.load();
    // Already proven in every lane (read again after a crash before the commit): nothing to redo,
    // and its bookkeeping may already be reclaimed by GC.
    if (this.w.every((w) => w !== null && w >= offset)) return;
    const manifest = buildManifest({
      dispatchId: record.dispatchId,
      tenantId: record.tenantId,
      recipients: record.recipients,
      chunkSize: this.opts.chunkSize,
    });
    const receipt = await this.store.beginDispatch(record.dispatchId, offset, manifest, manifestDigest(manifest));
    await Promise.all(
      manifest.lanes.map(async (lane) => {
        for (const chunk of lane.chunks) {
          const entries: MailboxEntryInput[] = chunk.users.map((userId) => ({
            tenantId: record.tenantId,
            userId,
            mailboxSeq: receipt.mailboxSeq,
            createdAt: record.createdAt,
            events: record.events,
          }));
          await this.store.appendChunk(receipt, lane.lane, chunk.chunkId, entries);
          await this.store.markChunkCompleted(receipt, lane.lane, chunk.chunkId);
        }
        await this.advanceLane(receipt, lane.lane, offset);
      }),
    );
    const lag = (this.now() - Number(record.createdAt)) / 1000;
    this.opts.metrics.dispatchLagSeconds.observe({ shard: String(this.shard) }, Math.max(0, lag));
  }

  private async advanceLane(_receipt: DispatchReceipt, lane: number, offset: bigint): Promise<void> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const prev = this.w[lane] ?? null;
      if (prev !== null && prev >= offset) return;
      try {
        const next = await this.store.advanceWatermark(lane, prev, offset);
        this.setW(lane, next.w);
        this.stalled.delete(lane);
        return;
      } catch (err) {
        if (err instanceof WatermarkConflictError && attempt === 0) {
          this.setW(lane, (await this.store.laneWatermark(lane)).w);
          continue;
        }
        if (err instanceof WatermarkStalledError) {
          this.stalled.add(lane);
          this.opts.metrics.laneStalls.inc({ shard: String(this.shard), lane: String(lane) });
        }
        throw err;
      }
    }
  }

  /** Kafka commit position proven by every lane: min W + 1, or null while any lane has none. */
  committable(): bigint | null {
    let min: bigint | null = null;
    for (const w of this.w) {
      if (w === null) return null;
      if (min === null || w < min) min = w;
    }
    return min === null ? null : min + 1n;
  }

  /** Cached lane watermarks (as last proven by this process). */
  watermarks(): readonly (bigint | null)[] {
    return [...this.w];
  }

  stalledLanes(): readonly number[] {
    return [...this.stalled].sort((a, b) => a - b);
  }

  /** Moves each lane's floor up to `min(W, committedNext − 1)` (only behind the committed Kafka offset). */
  async advanceFloors(committedNext: bigint): Promise<number> {
    let moved = 0;
    for (let lane = 0; lane < LANE_COUNT; lane++) {
      const current = await this.store.laneWatermark(lane);
      if (current.w === null) continue;
      const target = current.w < committedNext - 1n ? current.w : committedNext - 1n;
      if (target < 0n || (current.floor !== null && target <= current.floor)) continue;
      await this.store.advanceFloor(lane, current.floor, target);
      moved += 1;
    }
    return moved;
  }
}
