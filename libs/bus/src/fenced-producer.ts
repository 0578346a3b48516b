import { InvariantViolationError, UnavailableError } from '@qim/store-core';
import type { Kafka, Message, Producer, TopicMessages } from 'kafkajs';
import { createIdempotentProducer } from './idempotent-producer';
import type { RecordCoordinate } from './record-coordinates';
import { coordinatesOf } from './record-coordinates';

/** One record to produce. Without `partition`, the default partitioner places it by `key`. */
export interface ProduceRecord {
  readonly topic: string;
  readonly partition?: number;
  readonly key: string | Buffer | null;
  readonly value: Buffer;
}

/** Per-producer settings (see `produceBudgetWithin` for values derived from a send deadline). */
export interface ProducerTuning {
  /** Retries of one send before it fails (default `DEFAULT_PRODUCER_RETRIES`). */
  readonly retries?: number;
  /** The produce request's broker-side ack timeout (acks = all; kafkajs default 30 000 ms). */
  readonly ackTimeoutMs?: number;
  /** Called with the API name (Produce, Metadata, InitProducerId, …) of every request a broker answered. */
  readonly onRequest?: (apiName: string) => void;
}

/** Counters of a producer since it was constructed. */
export interface ProducerStats {
  /** Produce requests answered by a broker (kafkajs instrumentation; retries included). */
  readonly produceRequests: number;
  /** Calls of `send` (each one kafkajs `sendBatch`). */
  readonly sends: number;
  /** Producers discarded after a failed send. */
  readonly fences: number;
}

/**
 * An idempotent kafkajs producer that is never used again after a failed send.
 *
 * Why: when a produce attempt fails, kafkajs rolls the partition's sequence number back and
 * retries; if the failed request had in fact been appended (request timeout,
 * NOT_ENOUGH_REPLICAS_AFTER_APPEND) and the send finally fails, the *next* records get the same
 * sequence numbers and the broker answers them as duplicates, with the earlier records' offsets:
 * a false acknowledgement. Retries inside one `sendBatch` resend the same records, so they are safe;
 * what must never happen is another send on that sequence state. Hence:
 * - one `send` at a time (the caller serialises; a second concurrent call is an invariant violation);
 * - after any failure the producer is disconnected (which waits for its pending requests, bounded by
 *   the request timeout) and the next send first creates a new one, whose InitProducerId yields a
 *   new producer id and fresh sequences;
 * - a send resolves with each record's own coordinate (`coordinatesOf`), or fails as a whole.
 */
export class FencedProducer {
  private producer: Producer | null = null;
  private opening: Promise<Producer> | null = null;
  private sending = false;
  private closed = false;
  private readonly placed = new WeakMap<Message, number>();
  private counts = { produceRequests: 0, sends: 0, fences: 0 };

  constructor(
    private readonly kafka: Kafka,
    private readonly tuning: ProducerTuning = {},
  ) {}

  /** Creates and connects the producer now (otherwise the first send does). */
  async connect(): Promise<void> {
    await this.open();
  }

  /** Produces `records` in one `sendBatch` (acks = all); resolves with each record's coordinate, in order. */
  async send(records: readonly ProduceRecord[]): Promise<RecordCoordinate[]> {
    if (this.sending) throw new InvariantViolationError('FencedProducer.send called while a send is in flight');
    if (this.closed) throw new UnavailableError('producer is closed');
    this.sending = true;
    try {
      this.counts.sends++;
      const producer = await this.open();
      const messages: Message[] = records.map((r) => ({ key: r.key, value: r.value, ...(r.partition === undefined ? {} : { partition: r.partition }) }));
      try {
        const acks = await producer.sendBatch({
          acks: -1,
          ...(this.tuning.ackTimeoutMs === undefined ? {} : { timeout: this.tuning.ackTimeoutMs }),
          topicMessages: byTopic(records, messages),
        });
        return coordinatesOf(
          records.map((r, i) => ({ topic: r.topic, partition: this.partitionOf(messages[i]!) })),
          acks,
        );
      } catch (err) {
        await this.fence();
        throw err;
      }
    } finally {
      this.sending = false;
    }
  }

  stats(): ProducerStats {
    return { ...this.counts };
  }

  /** Disconnects (pending requests finish first); later sends fail. */
  async close(): Promise<void> {
    this.closed = true;
    const p = this.producer ?? (await this.opening?.catch(() => null)) ?? null;
    this.producer = null;
    await p?.disconnect();
  }

  private partitionOf(m: Message): number {
    const p = this.placed.get(m);
    if (p === undefined) throw new InvariantViolationError('a produced message was never placed by the partitioner');
    return p;
  }

  private open(): Promise<Producer> {
    if (this.producer) return Promise.resolve(this.producer);
    this.opening ??= this.create().finally(() => {
      this.opening = null;
    });
    return this.opening;
  }

  private async create(): Promise<Producer> {
    const p = createIdempotentProducer(this.kafka, {
      ...(this.tuning.retries === undefined ? {} : { retries: this.tuning.retries }),
      onPlaced: (m, partition) => this.placed.set(m, partition),
    });
    p.on(p.events.REQUEST, (e) => {
      if (e.payload.apiName === 'Produce') this.counts.produceRequests++;
      this.tuning.onRequest?.(e.payload.apiName);
    });
    try {
      await p.connect();
    } catch (err) {
      await p.disconnect().catch(() => undefined);
      throw err;
    }
    if (this.closed) {
      await p.disconnect();
      throw new UnavailableError('producer is closed');
    }
    this.producer = p;
    return p;
  }

  private async fence(): Promise<void> {
    const old = this.producer;
    this.producer = null;
    this.counts.fences++;
    await old?.disconnect().catch(() => undefined);
  }
}

function byTopic(records: readonly ProduceRecord[], messages: readonly Message[]): TopicMessages[] {
  const out = new Map<string, Message[]>();
  records.forEach((r, i) => {
    const list = out.get(r.topic) ?? [];
    list.push(messages[i]!);
    out.set(r.topic, list);
  });
  return [...out].map(([topic, list]) => ({ topic, messages: list }));
}
