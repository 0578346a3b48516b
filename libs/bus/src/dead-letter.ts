import type { Kafka } from 'kafkajs';
import { FencedProducer } from './fenced-producer';
import type { ConsumedRecord, PoisonHandler } from './page-handler';

/** The dead-letter topic of `topic` (created by the topic step next to it). */
export const deadLetterTopicOf = (topic: string): string => `${topic}.dlq`;

/** The value of a dead-letter record: where the poison record was, why, and its exact bytes. */
export interface DeadLetterEnvelope {
  readonly topic: string;
  readonly partition: number;
  /** Decimal offset of the original record. */
  readonly offset: string;
  readonly error: string;
  /** Base64 of the original key (null: none). */
  readonly key: string | null;
  /** Base64 of each original header value. */
  readonly headers: Readonly<Record<string, string>>;
  /** Base64 of the original value. */
  readonly value: string;
  /** ms since epoch when it was dead-lettered. */
  readonly deadLetteredAt: number;
}

/** Builds the envelope of `record` (pure). */
export function deadLetterEnvelope(record: ConsumedRecord, error: unknown, now: number): DeadLetterEnvelope {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(record.headers ?? {})) headers[k] = v.toString('base64');
  return {
    topic: record.topic,
    partition: record.partition,
    offset: record.offset.toString(),
    error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    key: record.key === null ? null : record.key.toString('base64'),
    headers,
    value: record.value.toString('base64'),
    deadLetteredAt: now,
  };
}

/** Reads an envelope back (for operators and tests); throws on anything that is not one. */
export function parseDeadLetter(value: Buffer): DeadLetterEnvelope {
  const e = JSON.parse(value.toString('utf8')) as Partial<DeadLetterEnvelope>;
  if (typeof e.topic !== 'string' || typeof e.partition !== 'number' || typeof e.offset !== 'string' || typeof e.value !== 'string') {
    throw new Error('not a dead-letter envelope');
  }
  return e as DeadLetterEnvelope;
}

/**
 * The dead-letter sink: a `PoisonHandler` that produces the poison record's envelope to
 * `<topic>.dlq` (acks = all, through a `FencedProducer`, keyed by the original key) and resolves only
 * once it is acknowledged, so the consumer commits past a poison record only after it is kept.
 * Sends are serialised (one in flight); a failed send rejects, and the page is read again later.
 *
 * One dead-letter record per poison record (issue 28 item 10): a page is retried whole (a store
 * error, a rebalance), so the same poison record comes again; per source topic and partition the sink
 * keeps the highest offset it has had acknowledged, and a record at or below it resolves without a
 * send (pages of one partition are handled in offset order, so every such record is already kept).
 * Within one process: after a crash between the dead-letter ack and the offset commit, the record is
 * written again (at least once).
 */
export class DeadLetterSink {
  private readonly producer: FencedProducer;
  private tail: Promise<unknown> = Promise.resolve();
  /** `topic:partition` → the highest source offset whose envelope was acknowledged. */
  private readonly kept = new Map<string, bigint>();

  constructor(
    kafka: Kafka,
    private readonly now: () => number = Date.now,
  ) {
    this.producer = new FencedProducer(kafka);
  }

  readonly handler: PoisonHandler = (record, error) => {
    const source = `${record.topic}:${record.partition}`;
    const sending = this.tail.then(async () => {
      const last = this.kept.get(source);
      if (last !== undefined && record.offset <= last) return;
      const value = Buffer.from(JSON.stringify(deadLetterEnvelope(record, error, this.now())));
      await this.producer.send([{ topic: deadLetterTopicOf(record.topic), key: record.key, value }]);
      this.kept.set(source, record.offset);
    });
    this.tail = sending.catch(() => undefined);
    return sending;
  };

  async connect(): Promise<void> {
    await this.producer.connect();
  }

  async close(): Promise<void> {
    await this.tail;
    await this.producer.close();
  }
}
