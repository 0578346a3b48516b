import type { ConsumedRecord, RecordHandler } from '@qim/bus';
import { LANE_COUNT, decodeDispatchRecord } from '@qim/store-core';
import type { ShardProcessor } from './shard-processor';

/**
 * The dispatch-topic `RecordHandler`: each partition is a shard with its own `ShardProcessor`
 * (a `MailboxStore` bound to `ShardEpoch{shard, epoch}`). Commits follow min-lane W.
 */
export class ShardWorker implements RecordHandler {
  private readonly processors = new Map<number, ShardProcessor>();
  private assigned: readonly number[] = [];
  private readonly committedNext = new Map<number, bigint>();

  constructor(private readonly processorFor: (shard: number) => Promise<ShardProcessor>) {}

  private async processor(shard: number): Promise<ShardProcessor> {
    let p = this.processors.get(shard);
    if (!p) {
      p = await this.processorFor(shard);
      await p.load();
      this.processors.set(shard, p);
    }
    return p;
  }

  async handle(record: ConsumedRecord): Promise<void> {
    const p = await this.processor(record.partition);
    await p.process(record.offset, decodeDispatchRecord(record.value));
  }

  committable(partition: number): bigint | null {
    return this.processors.get(partition)?.committable() ?? null;
  }

  async onAssigned(partitions: readonly number[]): Promise<void> {
    this.assigned = partitions;
    for (const shard of [...this.processors.keys()]) {
      if (!partitions.includes(shard)) this.processors.delete(shard);
    }
  }

  /** Records a commit made by the consumer (floors move only behind it). */
  noteCommitted(partition: number, next: bigint): void {
    this.committedNext.set(partition, next);
  }

  assignment(): readonly number[] {
    return this.assigned;
  }

  activeProcessors(): ShardProcessor[] {
    return [...this.processors.values()];
  }

  processorOf(shard: number): ShardProcessor | null {
    return this.processors.get(shard) ?? null;
  }

  /**
   * Readiness of the assigned shards: every lane watermark of every active shard must verify
   * (stored W equals its recomputation from completion facts). Stalled lanes are reported.
   */
  async readiness(): Promise<{ ok: boolean; detail: object }> {
    const shards: Record<string, object> = {};
    let ok = true;
    for (const p of this.processors.values()) {
      try {
        await Promise.all(Array.from({ length: LANE_COUNT }, (_, lane) => p.store.laneWatermark(lane)));
        shards[String(p.shard)] = { verified: true, stalledLanes: p.stalledLanes(), committable: p.committable()?.toString() ?? null };
      } catch (err) {
        ok = false;
        shards[String(p.shard)] = { verified: false, error: err instanceof Error ? err.message : String(err) };
      }
    }
    return { ok, detail: { assigned: this.assigned, shards } };
  }

  committedOf(shard: number): bigint | null {
    return this.committedNext.get(shard) ?? null;
  }
}
