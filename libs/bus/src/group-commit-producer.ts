import { UnavailableError } from '@qim/store-core';
import type { Kafka } from 'kafkajs';
import type { ProduceRecord, ProducerStats } from './fenced-producer';
import { FencedProducer } from './fenced-producer';
import type { RecordCoordinate } from './record-coordinates';
import { RECORD_BATCH_OVERHEAD_BYTES, RECORD_OVERHEAD_BYTES } from './record-limit';

/** Bounds of one produce request. A single unit larger than them is still sent, alone. */
export interface GroupCommitLimits {
  readonly maxRecords: number;
  /**
   * Sum of key and value bytes plus `RECORD_OVERHEAD_BYTES` per record (the broker's
   * `max.message.bytes` applies per partition batch: `capBytes` keeps a request's records within it).
   */
  readonly maxBytes: number;
}

export const DEFAULT_GROUP_COMMIT_LIMITS: GroupCommitLimits = Object.freeze({ maxRecords: 1_000, maxBytes: 512 * 1024 });

export interface GroupCommitOptions {
  /** Retries of one produce request before it fails (see `DEFAULT_PRODUCER_RETRIES`). */
  readonly retries?: number;
  /** The produce request's broker-side ack timeout (ms; see `ProducerTuning`). */
  readonly ackTimeoutMs?: number;
  readonly limits?: Partial<GroupCommitLimits>;
  /**
   * Produce pacing (ms, default 0 = off): a request starts no sooner than this after the previous
   * one started. Units queued meanwhile go together, so a steady stream is sent in fewer, larger
   * requests; a unit arriving after a quiet spell longer than this goes at once. A unit waits at
   * most this long for its request to start; acknowledgement is unchanged.
   */
  readonly paceMs?: number;
  /** Called with the API name of every request a broker answered (`ProducerTuning.onRequest`). */
  readonly onRequest?: (apiName: string) => void;
  /**
   * Awaited after a request's batch is taken from the queue and before it is sent: units produced
   * meanwhile queue for the next request, exactly as while a request is in flight. For
   * instrumentation, and for tests that must hold a request in flight (default: none).
   */
  readonly beforeSend?: (batch: SentBatch) => void | Promise<void>;
  /** The pacing's time source and wait (default: `performance.now` and `setTimeout`). */
  readonly clock?: PaceClock;
}

/** What one produce request carries. */
export interface SentBatch {
  /** Units (calls of `produce`) in the request, in call order. */
  readonly units: number;
  readonly records: number;
}

/** Monotonic time (ms) and a wait, as the pacing uses them. */
export interface PaceClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const REAL_CLOCK: PaceClock = Object.freeze({
  now: () => performance.now(),
  sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
});

export interface GroupCommitStats extends ProducerStats {
  /** Units (calls of `produce`) acknowledged or failed. */
  readonly units: number;
}

/** What one `produce` call queued: acknowledged together, each record with its own coordinate. */
export interface QueuedUnit {
  readonly records: readonly ProduceRecord[];
  readonly bytes: number;
}

interface Pending extends QueuedUnit {
  resolve(c: RecordCoordinate[]): void;
  reject(e: unknown): void;
}

/**
 * Group commit over one `FencedProducer`: while a produce request is in flight, new units queue;
 * when it settles (and the pace, if any, has passed since it started), everything queued (up to the
 * limits) goes in the next request. One request in flight at a time, units in call order, so
 * records of one partition keep their call order. A unit resolves with its own records'
 * coordinates, or fails with its request's error (a failed request acknowledges none of its
 * records; the producer fences before the next one).
 */
export class GroupCommitProducer {
  private readonly queue: Pending[] = [];
  private readonly producer: FencedProducer;
  private limits: GroupCommitLimits;
  private running = false;
  private closing = false;
  private readonly idleWaiters: (() => void)[] = [];
  private units = 0;
  private readonly paceMs: number;
  private lastStartedAt = -Infinity;
  private readonly clock: PaceClock;
  private readonly beforeSend: ((batch: SentBatch) => void | Promise<void>) | undefined;

  constructor(kafka: Kafka, options: GroupCommitOptions = {}) {
    this.paceMs = options.paceMs ?? 0;
    if (!Number.isFinite(this.paceMs) || this.paceMs < 0) throw new RangeError(`paceMs must be a finite number ≥ 0, got ${this.paceMs}`);
    this.producer = new FencedProducer(kafka, {
      ...(options.retries === undefined ? {} : { retries: options.retries }),
      ...(options.ackTimeoutMs === undefined ? {} : { ackTimeoutMs: options.ackTimeoutMs }),
      ...(options.onRequest === undefined ? {} : { onRequest: options.onRequest }),
    });
    this.limits = Object.freeze({ ...DEFAULT_GROUP_COMMIT_LIMITS, ...options.limits });
    this.clock = options.clock ?? REAL_CLOCK;
    this.beforeSend = options.beforeSend;
  }

  connect(): Promise<void> {
    return this.producer.connect();
  }

  /** Queues one unit; resolves once its request is acknowledged, with one coordinate per record, in order. */
  produce(records: readonly ProduceRecord[]): Promise<RecordCoordinate[]> {
    if (this.closing) return Promise.reject(new UnavailableError('producer is closing'));
    if (records.length === 0) return Promise.resolve([]);
    const bytes = records.reduce((n, r) => n + r.value.length + keyBytes(r.key) + RECORD_OVERHEAD_BYTES, 0);
    return new Promise<RecordCoordinate[]>((resolve, reject) => {
      this.queue.push({ records, bytes, resolve, reject });
      if (!this.running) {
        this.running = true;
        void this.pump();
      }
    });
  }

  /**
   * Keeps every later request within a topic's record limit (`max.message.bytes`, read at start-up):
   * several units together never form a batch the broker refuses. A single unit above it is still
   * sent alone (its caller checks it first).
   */
  capBytes(recordLimit: number): void {
    this.limits = Object.freeze({ ...this.limits, maxBytes: Math.min(this.limits.maxBytes, recordLimit - RECORD_BATCH_OVERHEAD_BYTES) });
  }

  stats(): GroupCommitStats {
    return { ...this.producer.stats(), units: this.units };
  }

  /** Refuses new units, waits until the queued ones are settled, then disconnects. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.running) await new Promise<void>((r) => this.idleWaiters.push(r));
    await this.producer.close();
  }

  private async pump(): Promise<void> {
    // Let the calls of the current tick join the first request too.
    await Promise.resolve();
    try {
      while (this.queue.length > 0) {
        const holdMs = this.lastStartedAt + this.paceMs - this.clock.now();
        if (holdMs > 0) await this.clock.sleep(holdMs);
        this.lastStartedAt = this.clock.now();
        const batch = this.queue.splice(0, takeCount(this.queue, this.limits));
        try {
          await this.beforeSend?.({ units: batch.length, records: batch.reduce((n, u) => n + u.records.length, 0) });
          const coords = await this.producer.send(batch.flatMap((u) => u.records));
          let i = 0;
          for (const u of batch) {
            u.resolve(coords.slice(i, i + u.records.length));
            i += u.records.length;
          }
        } catch (err) {
          for (const u of batch) u.reject(err);
        }
        this.units += batch.length;
      }
    } finally {
      this.running = false;
      for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }
}

function keyBytes(key: string | Buffer | null): number {
  return key === null ? 0 : typeof key === 'string' ? Buffer.byteLength(key) : key.length;
}

/** How many queued units (from the head, at least one) fit in one request. */
export function takeCount(queue: readonly QueuedUnit[], limits: GroupCommitLimits): number {
  let records = 0;
  let bytes = 0;
  let n = 0;
  for (const u of queue) {
    if (n > 0 && (records + u.records.length > limits.maxRecords || bytes + u.bytes > limits.maxBytes)) break;
    records += u.records.length;
    bytes += u.bytes;
    n++;
  }
  return n;
}
