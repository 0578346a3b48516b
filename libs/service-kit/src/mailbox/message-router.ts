import type { ConsumedRecord, DispatchProducer, RecordHandler } from '@qim/bus';
import { dispatchRecordsOf } from '@qim/bus';
import { decodeMessageEvent } from '@qim/store-core';
import type { ServiceMetrics } from '../metrics/service-metrics';

/**
 * The messages-topic `RecordHandler`: one `DispatchRecord` per recipient shard, produced to the
 * dispatch topic (partition = shard); the input offset becomes committable only after the produce
 * was acknowledged. A crash in between re-publishes the same dispatch ids later (absorbed by
 * `beginDispatch`).
 */
export class MessageRouter implements RecordHandler {
  private readonly done = new Map<number, bigint>();

  constructor(
    private readonly producer: Pick<DispatchProducer, 'send'>,
    private readonly shardCount: number,
    private readonly metrics: ServiceMetrics,
  ) {}

  async handle(record: ConsumedRecord): Promise<void> {
    const dispatches = dispatchRecordsOf(decodeMessageEvent(record.value), this.shardCount);
    await this.producer.send(dispatches);
    this.metrics.routedDispatches.inc(dispatches.length);
    this.done.set(record.partition, record.offset + 1n);
  }

  committable(partition: number): bigint | null {
    return this.done.get(partition) ?? null;
  }

  onAssigned(): void {
    this.done.clear();
  }
}
