import { consumerLag } from '@qim/bus';
import type { MailboxStore } from '@qim/store-core';
import { InvalidInputError, LANE_COUNT } from '@qim/store-core';
import type { MailboxConfig } from '../config/mailbox-config';
import type { ShardWorker } from './shard-worker';

type Kafka = Parameters<typeof consumerLag>[0];

/** Operator view of one shard: lane watermarks and floors, stalls, Kafka committed/end offsets. */
export class ShardStatusReader {
  constructor(
    private readonly storeFor: (shard: number) => Promise<MailboxStore>,
    private readonly worker: ShardWorker,
    private readonly kafka: Kafka | null,
    private readonly config: Pick<MailboxConfig, 'shards' | 'epoch' | 'shardGroup' | 'kafka'>,
  ) {}

  async status(shard: number): Promise<object> {
    if (!Number.isInteger(shard) || shard < 0 || shard >= this.config.shards) {
      throw new InvalidInputError(`shard must be 0…${this.config.shards - 1}`);
    }
    const store = await this.storeFor(shard);
    const lanes = await Promise.all(
      Array.from({ length: LANE_COUNT }, async (_, lane) => {
        try {
          const l = await store.laneWatermark(lane);
          return { lane, w: l.w?.toString() ?? null, floor: l.floor?.toString() ?? null };
        } catch (err) {
          return { lane, error: err instanceof Error ? err.message : String(err) };
        }
      }),
    );
    const p = this.worker.processorOf(shard);
    let kafka: object | null = null;
    if (this.kafka) {
      const lag = (await consumerLag(this.kafka, this.config.shardGroup, this.config.kafka.dispatchTopic)).find((x) => x.partition === shard);
      kafka = lag
        ? { committed: lag.committed?.toString() ?? null, end: lag.end.toString(), lag: (lag.end - (lag.committed ?? 0n)).toString() }
        : null;
    }
    return {
      shard,
      epoch: this.config.epoch,
      assigned_here: this.worker.assignment().includes(shard),
      committable: p?.committable()?.toString() ?? null,
      stalled_lanes: p?.stalledLanes() ?? [],
      kafka,
      lanes,
    };
  }
}
