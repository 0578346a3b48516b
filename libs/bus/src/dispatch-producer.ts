import type { DispatchRecord } from '@qim/store-core';
import { UnavailableError, encodeDispatchRecord } from '@qim/store-core';
import type { Kafka } from 'kafkajs';
import type { GroupCommitOptions, GroupCommitStats } from './group-commit-producer';
import { GroupCommitProducer } from './group-commit-producer';
import type { RecordCoordinate } from './record-coordinates';

/**
 * The router's producer to the dispatch topic: idempotent, acks = all, group commit and fencing as
 * `KafkaOutboxPublisher`; each record goes to partition = its shard, keyed by dispatch id. One
 * `send` (any number of records, any shards) is acknowledged as a whole: it resolves with each
 * record's own coordinate, in order, or fails with `UnavailableError` and acknowledges none.
 */
export class DispatchProducer {
  private readonly producer: GroupCommitProducer;

  constructor(
    kafka: Kafka,
    readonly topic: string,
    options: GroupCommitOptions = {},
  ) {
    this.producer = new GroupCommitProducer(kafka, options);
  }

  connect(): Promise<void> {
    return this.producer.connect();
  }

  async send(records: readonly DispatchRecord[]): Promise<RecordCoordinate[]> {
    const encoded = records.map((d) => ({ topic: this.topic, partition: d.shard, key: d.dispatchId, value: encodeDispatchRecord(d) }));
    try {
      return await this.producer.produce(encoded);
    } catch (err) {
      throw new UnavailableError(`dispatch produce failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }

  stats(): GroupCommitStats {
    return this.producer.stats();
  }

  /** Refuses new sends, lets the queued ones finish, then closes the producer. */
  disconnect(): Promise<void> {
    return this.producer.close();
  }
}
