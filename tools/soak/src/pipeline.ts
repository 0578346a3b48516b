import type { ConsumedPage, ConsumedRecord, PageHandler, RecordCoordinate } from '@qim/bus';
import type { CommitIntent, DispatchRecord, OutboxPublisher, Publication } from '@qim/store-core';
import { UnavailableError, encodeDispatchRecord, encodeMessageEvent, messageEventOf } from '@qim/store-core';

/**
 * An in-process ordered log standing in for a Kafka topic (the soak is about time, retention and
 * housekeeping; Kafka faults are the drills' subject): partitions of records with offsets from 0,
 * and one consumer position per partition that moves only when the handler of a page resolved
 * (the consumer's offset commit). A page can be delivered again without moving the position (a
 * crash between handling and committing), as Kafka would redeliver it.
 */
export class OrderedLog {
  private readonly partitions: ConsumedRecord[][];
  private readonly committed: bigint[];

  constructor(
    readonly topic: string,
    partitionCount: number,
  ) {
    this.partitions = Array.from({ length: partitionCount }, () => []);
    this.committed = Array.from({ length: partitionCount }, () => 0n);
  }

  get partitionCount(): number {
    return this.partitions.length;
  }

  append(partition: number, key: Buffer | null, value: Buffer): bigint {
    const p = this.partitions[partition];
    if (!p) throw new Error(`${this.topic} has no partition ${partition}`);
    const offset = BigInt(p.length);
    p.push({ topic: this.topic, partition, offset, key, value });
    return offset;
  }

  /** Records not consumed yet, over all partitions. */
  backlog(): number {
    return this.partitions.reduce((n, p, i) => n + p.length - Number(this.committed[i]!), 0);
  }

  /** The next page of a partition from its committed position (at most `max` records), or null. */
  nextPage(partition: number, max: number): ConsumedPage | null {
    const p = this.partitions[partition]!;
    const from = Number(this.committed[partition]!);
    if (from >= p.length) return null;
    const records = p.slice(from, from + max);
    return { topic: this.topic, partition, fromOffset: records[0]!.offset, toOffset: records[records.length - 1]!.offset, records };
  }

  /** The committed position of a partition (the next offset to consume). */
  position(partition: number): bigint {
    return this.committed[partition]!;
  }

  /** Moves a partition's committed position back to `nextOffset` (an offset reset to a lower offset). */
  rewind(partition: number, nextOffset: bigint): void {
    if (nextOffset < 0n || nextOffset > this.committed[partition]!) throw new Error(`${this.topic}[${partition}]: cannot rewind to ${nextOffset}`);
    this.committed[partition] = nextOffset;
  }

  commit(partition: number, nextOffset: bigint): void {
    if (nextOffset > this.committed[partition]!) this.committed[partition] = nextOffset;
  }
}

/** What one drain of a log did. */
export interface DrainReport {
  readonly pages: number;
  readonly redelivered: number;
  /** Per partition whose page failed: the error (the page stays uncommitted, retried next drain). */
  readonly failures: ReadonlyMap<number, unknown>;
}

/**
 * Feeds every partition's backlog to `handler` page by page, committing behind each page. With
 * `redeliver(partition)` true, a handled page is not committed the first time and is handed over
 * again (a consumer crash after the side effects, before the commit). A page that throws stays
 * uncommitted; that partition stops for this drain.
 */
export async function drainLog(log: OrderedLog, handler: PageHandler, pageRecords: number, redeliver: () => boolean): Promise<DrainReport> {
  let pages = 0;
  let redelivered = 0;
  const failures = new Map<number, unknown>();
  await Promise.all(
    Array.from({ length: log.partitionCount }, async (_, partition) => {
      for (let page = log.nextPage(partition, pageRecords); page !== null; page = log.nextPage(partition, pageRecords)) {
        try {
          await handler.handlePage(page);
          if (redeliver()) {
            redelivered++;
            await handler.handlePage(page);
          }
        } catch (err) {
          failures.set(partition, err);
          return;
        }
        log.commit(partition, page.toOffset + 1n);
        pages++;
      }
    }),
  );
  return { pages, redelivered, failures };
}

/**
 * The outbox publisher over the in-process messages log: the same event bytes as
 * `KafkaOutboxPublisher` (`encodeMessageEvent(messageEventOf(intent))`), partition by conversation.
 * `failNext(n)` makes the next n publishes fail after nothing was appended (a broker that did not
 * acknowledge): the commit stays unpublished for the client's retry or the recovery loop.
 */
export class LogOutboxPublisher implements OutboxPublisher {
  private failures = 0;
  published = 0;

  constructor(private readonly log: OrderedLog) {}

  failNext(n: number): void {
    this.failures += n;
  }

  async publish(intent: CommitIntent): Promise<Publication> {
    if (this.failures > 0) {
      this.failures--;
      throw new UnavailableError('soak: simulated outbox publish failure');
    }
    const value = encodeMessageEvent(messageEventOf(intent));
    const partition = parseInt(intent.request.conversationId.slice(-4), 16) % this.log.partitionCount;
    const offset = this.log.append(partition, Buffer.from(intent.key.clientMessageId, 'hex'), value);
    this.published++;
    return { topic: this.log.topic, partition, offset };
  }
}

/** The router's dispatch producer over the in-process dispatch log (partition = shard). */
export class LogDispatchProducer {
  /** created_at of every dispatch id produced (the census derives dispatch-index expiries from it). */
  readonly createdAt = new Map<string, bigint>();

  constructor(private readonly log: OrderedLog) {}

  async send(records: readonly DispatchRecord[]): Promise<RecordCoordinate[]> {
    for (const d of records) this.createdAt.set(d.dispatchId, d.createdAt);
    return records.map((d) => ({
      topic: this.log.topic,
      partition: d.shard,
      offset: this.log.append(d.shard, Buffer.from(d.dispatchId, 'hex'), encodeDispatchRecord(d)),
    }));
  }
}
