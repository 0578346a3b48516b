import type { CommitIntent, OutboxPublisher, Publication } from '@qim/store-core';
import { UnavailableError, encodeMessageEvent, messageEventOf } from '@qim/store-core';
import type { Kafka } from 'kafkajs';
import type { GroupCommitOptions, GroupCommitStats } from './group-commit-producer';
import { GroupCommitProducer } from './group-commit-producer';

/**
 * The writer's outbox on the messages topic: idempotent, acks = all, group commit (publications
 * issued while a produce request is in flight go together in the next one), fenced after any
 * failed send (`FencedProducer`). Key = conversation id (hex), value =
 * `encodeMessageEvent(messageEventOf(intent))`, a pure function of the intent, so a re-publication
 * after a crash is byte-identical. `publish` resolves only after the broker acknowledged the
 * request that carried this record, with this record's own coordinate; any failure (also an
 * ambiguous one) is `UnavailableError` and the commit is left for recovery.
 */
export class KafkaOutboxPublisher implements OutboxPublisher {
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

  async publish(intent: CommitIntent): Promise<Publication> {
    const value = encodeMessageEvent(messageEventOf(intent));
    let coordinates;
    try {
      coordinates = await this.producer.produce([{ topic: this.topic, key: intent.request.conversationId, value }]);
    } catch (err) {
      throw new UnavailableError(`outbox publish failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    const c = coordinates[0];
    if (!c) throw new UnavailableError('outbox publish not acknowledged');
    return { topic: c.topic, partition: c.partition, offset: c.offset };
  }

  stats(): GroupCommitStats {
    return this.producer.stats();
  }

  /** Refuses new publications, lets the queued ones finish, then closes the producer. */
  disconnect(): Promise<void> {
    return this.producer.close();
  }
}
