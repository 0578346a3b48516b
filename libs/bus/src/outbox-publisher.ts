import type { CommitIntent, OutboxPublisher, Publication } from '@qim/store-core';
import { FanoutLimitError, UnavailableError, encodeMessageEvent, messageEventOf } from '@qim/store-core';
import type { Kafka } from 'kafkajs';
import type { GroupCommitOptions, GroupCommitStats } from './group-commit-producer';
import { GroupCommitProducer } from './group-commit-producer';
import { largestValueBytes, readTopicRecordLimit } from './record-limit';

/** Bytes of an outbox record's key: the conversation id in hex. */
const KEY_BYTES = 32;

/**
 * The writer's outbox on the messages topic: idempotent, acks = all, group commit (publications
 * issued while a produce request is in flight go together in the next one), fenced after any
 * failed send (`FencedProducer`). Key = conversation id (hex), value =
 * `encodeMessageEvent(messageEventOf(intent))`, a pure function of the intent, so a re-publication
 * after a crash is byte-identical. `publish` resolves only after the broker acknowledged the
 * request that carried this record, with this record's own coordinate; a failed send (also an
 * ambiguous one) is `UnavailableError` and the commit is left for recovery.
 *
 * Record limit (issue 28 item 11): `connect` reads the topic's `max.message.bytes`; requests are
 * kept within it, and an event that cannot fit alone is refused before anything is sent with
 * `FanoutLimitError` — final, not an outage: the broker would refuse it on every attempt.
 * `maxEventBytes` tells a writer the bound before it reserves.
 */
export class KafkaOutboxPublisher implements OutboxPublisher {
  private readonly producer: GroupCommitProducer;
  private limit: number | null = null;

  constructor(
    private readonly kafka: Kafka,
    readonly topic: string,
    options: GroupCommitOptions = {},
  ) {
    this.producer = new GroupCommitProducer(kafka, options);
  }

  /** Connects the producer and reads the topic's record limit. */
  async connect(): Promise<void> {
    const [limit] = await Promise.all([readTopicRecordLimit(this.kafka, this.topic), this.producer.connect()]);
    this.limit = limit;
    this.producer.capBytes(limit);
  }

  /** The largest event (value bytes) the topic takes; null before `connect`. */
  maxEventBytes(): number | null {
    return this.limit === null ? null : largestValueBytes(this.limit, KEY_BYTES);
  }

  async publish(intent: CommitIntent): Promise<Publication> {
    const value = encodeMessageEvent(messageEventOf(intent));
    const max = this.maxEventBytes();
    if (max !== null && value.length > max) {
      throw new FanoutLimitError(
        `the message event is ${value.length} bytes (${intent.recipients.length} recipients); ` +
          `topic ${this.topic} takes at most ${max} (max.message.bytes ${this.limit})`,
      );
    }
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
