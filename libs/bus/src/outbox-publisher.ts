import type { CommitIntent, OutboxPublisher, Publication } from '@qim/store-core';
import { UnavailableError, encodeMessageEvent, messageEventOf } from '@qim/store-core';
import type { Kafka, Producer } from 'kafkajs';
import { createIdempotentProducer } from './idempotent-producer';

/**
 * The writer's outbox: an idempotent kafkajs producer (acks = all, one request in flight) on the
 * messages topic. Key = conversation id (hex), value = `encodeMessageEvent(messageEventOf(intent))`,
 * a pure function of the intent, so a re-publication after a crash is byte-identical.
 * `publish` resolves only after the broker acknowledged the record.
 */
export class KafkaOutboxPublisher implements OutboxPublisher {
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

  async publish(intent: CommitIntent): Promise<Publication> {
    const value = encodeMessageEvent(messageEventOf(intent));
    let meta;
    try {
      meta = await this.producer.send({
        topic: this.topic,
        acks: -1,
        messages: [{ key: intent.request.conversationId, value }],
      });
    } catch (err) {
      throw new UnavailableError(`outbox publish failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    const m = meta[0];
    if (!m || m.baseOffset === undefined || m.errorCode !== 0) {
      throw new UnavailableError(`outbox publish not acknowledged (error code ${m?.errorCode ?? 'none'})`);
    }
    return { topic: this.topic, partition: m.partition, offset: BigInt(m.baseOffset) };
  }

  /** Flushes and closes the producer (in-flight sends finish first). */
  disconnect(): Promise<void> {
    return this.producer.disconnect();
  }
}
