import type { DispatchRecord } from '@qim/store-core';
import { UnavailableError, encodeDispatchRecord } from '@qim/store-core';
import type { Kafka, Producer } from 'kafkajs';
import { createIdempotentProducer } from './idempotent-producer';

/**
 * The router's producer to the dispatch topic: idempotent (acks = all, one request in flight, so
 * offsets within a partition stay contiguous); each record goes to partition = its shard, keyed by
 * dispatch id. `send` resolves only when every record is acknowledged.
 */
export class DispatchProducer {
  private readonly producer: Producer;

  constructor(
    kafka: Kafka,
    readonly topic: string,
  ) {
    this.producer = createIdempotentProducer(kafka);
  }

  connect(): Promise<void> {
    return this.producer.connect();
  }

  async send(records: readonly DispatchRecord[]): Promise<void> {
    if (records.length === 0) return;
    try {
      const meta = await this.producer.send({
        topic: this.topic,
        acks: -1,
        messages: records.map((d) => ({ partition: d.shard, key: d.dispatchId, value: encodeDispatchRecord(d) })),
      });
      const bad = meta.find((m) => m.errorCode !== 0);
      if (bad) throw new Error(`partition ${bad.partition} error code ${bad.errorCode}`);
    } catch (err) {
      throw new UnavailableError(`dispatch produce failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }

  disconnect(): Promise<void> {
    return this.producer.disconnect();
  }
}
