import type { Consumer, EachBatchPayload, IHeaders, Kafka } from 'kafkajs';
import type { BusLogger } from './kafka-factory';
import { OffsetCommitQueue } from './offset-commit-queue';
import { cutPages } from './page-cutter';
import type { ConsumedRecord, PageHandler } from './page-handler';
import { RetryBackoff } from './retry-backoff';

export interface PartitionConsumerOptions {
  readonly groupId: string;
  readonly topic: string;
  /** Partitions processed concurrently by this process (each partition stays sequential). */
  readonly concurrency: number;
  /** Largest page handed to the handler (records); a fetched batch is cut into pages of this size. */
  readonly pageRecords: number;
  readonly logger?: BusLogger;
  /** Called after each accepted commit, per partition in it, with (partition, committed next offset). */
  readonly onCommitted?: (partition: number, offset: bigint) => void;
  /** Called when an OffsetCommit request ended: accepted (`ok`) or `failed`. */
  readonly onCommitRequest?: (result: 'ok' | 'failed') => void;
  /** First and largest pause (ms) before a failed page of a partition is read again. */
  readonly retry?: { readonly initialMs: number; readonly maxMs: number };
  /**
   * Called when kafkajs stopped this consumer for good (a crash it does not restart from, e.g. a
   * crashed group join): the process cannot recover by itself and should exit with the reason.
   */
  readonly onTerminal?: (reason: string) => void;
  /** Group session timeout (ms, default 15 s; the broker bounds it by group.min/max.session.timeout.ms). */
  readonly sessionTimeoutMs?: number;
  /** How long `start` waits for the first group join before it fails (ms, default 30 s). */
  readonly joinTimeoutMs?: number;
  /** Called on every group join (the first and each rejoin after a rebalance or a crash). */
  readonly onJoin?: () => void;
  /** Called on every crash kafkajs reports (`restart`: whether kafkajs restarts the consumer). */
  readonly onCrash?: (restart: boolean) => void;
  /** The least time between the starts of two OffsetCommit requests (ms, default 0; `OffsetCommitQueue.minIntervalMs`). */
  readonly commitIntervalMs?: number;
  /**
   * A fetch is answered once this many bytes are there (default 1: at the first record) or after
   * `fetchMaxWaitMs` (default 100). More bytes per fetch: fewer fetch round trips at a high rate, each
   * record waiting up to the wait for its fetch.
   */
  readonly fetchMinBytes?: number;
  readonly fetchMaxWaitMs?: number;
  /**
   * Fetch pacing (ms, default 0 = off): after a fetch whose records reached the end of their
   * partitions (the consumer is caught up), the next fetch starts no sooner than this long after
   * those records were handed over. Records arriving meanwhile go in that next fetch, so a steady
   * stream is fetched in batches instead of nearly one fetch per record. An idle partition is not
   * paced (its empty fetch waits `fetchMaxWaitMs` at the broker), and neither is a consumer that is
   * behind (a batch that ends before the high watermark): pacing never slows catching up. The
   * records of the fetch itself are not delayed; a record arriving during the pause waits for it.
   */
  readonly fetchPaceMs?: number;
  /** Called with the API name (Fetch, OffsetCommit, Heartbeat, …) of every request a broker answered. */
  readonly onRequest?: (apiName: string) => void;
  /**
   * Awaited before each OffsetCommit request is sent, with the offsets it carries (partition → next
   * offset): pages handled meanwhile queue for the next request, exactly as while a request is in
   * flight. For tests that must hold a commit in flight (default: none).
   */
  readonly beforeCommitRequest?: (offsets: ReadonlyMap<number, bigint>) => void | Promise<void>;
}

function headersOf(h: IHeaders | undefined): Record<string, Buffer> | undefined {
  if (!h) return undefined;
  const out: Record<string, Buffer> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    const first = Array.isArray(v) ? v[0] : v;
    if (first !== undefined) out[k] = Buffer.isBuffer(first) ? first : Buffer.from(first);
  }
  return out;
}

const HEARTBEAT_MS = 1_000;

/** A kafkajs record timestamp (decimal ms string) as a number; undefined when absent or not a plausible ms time. */
function timestampOf(raw: string | undefined): number | undefined {
  if (raw === undefined || !/^[0-9]{1,15}$/.test(raw)) return undefined;
  const ms = Number(raw);
  return ms > 0 ? ms : undefined;
}

const POSITION_METADATA = /^qim-pos-v1:t=([0-9]{1,15})$/;

/**
 * The OffsetCommit metadata a consumer stores with each committed offset: the Kafka timestamp (ms)
 * of the last record of the page the offset follows. A reader of the group's offsets learns from it
 * how old the records just behind the committed position are (`consumerLag`), with no fetch.
 */
export function commitPositionMetadata(lastRecordTimestampMs: number): string {
  if (!Number.isSafeInteger(lastRecordTimestampMs) || lastRecordTimestampMs <= 0)
    throw new RangeError(`record timestamp must be a positive integer ms, got ${lastRecordTimestampMs}`);
  return `qim-pos-v1:t=${lastRecordTimestampMs}`;
}

/** The timestamp `commitPositionMetadata` stored, or null for anything else (none, another writer's, damaged). */
export function parseCommitPositionMetadata(metadata: string | null | undefined): number | null {
  const m = metadata ? POSITION_METADATA.exec(metadata) : null;
  if (!m) return null;
  const ms = Number(m[1]);
  return ms > 0 ? ms : null;
}

/** The part of a batch pacing looks at (kafkajs `Batch`). */
export interface PacedBatch {
  readonly messages: readonly unknown[];
  readonly highWatermark: string;
  lastOffset(): string;
}

/**
 * How long to hold the next fetch after a batch handed over at `handedOverAt` and handled by `now`
 * (`PartitionConsumerOptions.fetchPaceMs`): the rest of the pace when the batch had records and
 * reached its partition's high watermark, else 0 (an empty fetch, or a consumer that is behind).
 */
export function fetchPauseMs(paceMs: number, handedOverAt: number, now: number, batch: PacedBatch): number {
  if (paceMs <= 0 || batch.messages.length === 0) return 0;
  if (BigInt(batch.lastOffset()) + 1n < BigInt(batch.highWatermark)) return 0;
  return Math.max(0, handedOverAt + paceMs - now);
}

/**
 * A kafkajs consumer group member that drives a `PageHandler` page by page (`eachBatch`, manual
 * commits only). Per page: handle (heartbeating every second while it runs, so long work keeps group
 * membership) → queue `toOffset + 1` for commit → heartbeat → the next page. Commits leave the fetch
 * cycle (`OffsetCommitQueue`): one OffsetCommit request in flight, the offsets of the pages handled
 * meanwhile in the next, so no page waits for its predecessor's commit round trip; an offset earned
 * before a rejoin is dropped, so a member that lost the partition does not commit for it. A page
 * that fails pauses only its partition and is read again after a growing backoff, never skipped;
 * other partitions go on. `stop` lets the page in flight finish and sends its commit before the
 * group is left.
 */
export class PartitionConsumer {
  private readonly consumer: Consumer;
  private assigned: readonly number[] = [];
  private running = false;
  private crashed: string | null = null;
  private stopping = false;
  private joined = false;
  private readonly joinWaiters = new Set<(err: Error | null) => void>();
  private readonly backoff: RetryBackoff;
  /** The commit function of the latest batch (kafkajs commits through the group's current member). */
  private commitVia: EachBatchPayload['commitOffsetsIfNecessary'] | null = null;
  /** Group joins so far: the generation a handled page's offset belongs to. */
  private joins = 0;
  private readonly commits: OffsetCommitQueue;

  constructor(
    kafka: Kafka,
    private readonly handler: PageHandler,
    private readonly opts: PartitionConsumerOptions,
  ) {
    this.backoff = new RetryBackoff(opts.retry ?? { initialMs: 200, maxMs: 30_000 });
    this.commits = new OffsetCommitQueue({
      // Through the latest batch's own commit function: kafkajs's `consumer.commitOffsets` silently
      // does nothing once the runner is stopping, which would lose the final commit of `stop`.
      send: async (offsets, metadata) => {
        await opts.beforeCommitRequest?.(offsets);
        const commit = this.commitVia;
        if (!commit) throw new Error('no batch has been handled yet');
        // kafkajs passes each partition's `metadata` on to the OffsetCommit request as it is.
        const partitions = [...offsets].map(([partition, offset]) => ({
          partition,
          offset: offset.toString(),
          ...(metadata.has(partition) ? { metadata: metadata.get(partition)! } : {}),
        }));
        await commit({ topics: [{ topic: opts.topic, partitions }] });
      },
      currentJoin: () => this.joins,
      onCommitted: (partition, offset) => opts.onCommitted?.(partition, offset),
      minIntervalMs: opts.commitIntervalMs ?? 0,
      onSent: () => opts.onCommitRequest?.('ok'),
      onFailed: (err, offsets) => {
        opts.onCommitRequest?.('failed');
        opts.logger?.warn(
          { err, topic: opts.topic, offsets: Object.fromEntries([...offsets].map(([p, o]) => [p, o.toString()])) },
          'offset commit failed; sent again after a delay',
        );
      },
    });
    this.consumer = kafka.consumer({
      groupId: opts.groupId,
      sessionTimeout: opts.sessionTimeoutMs ?? 15_000,
      rebalanceTimeout: 20_000,
      heartbeatInterval: HEARTBEAT_MS,
      maxWaitTimeInMs: opts.fetchMaxWaitMs ?? 100,
      minBytes: opts.fetchMinBytes ?? 1,
      allowAutoTopicCreation: false,
    });
    const onRequest = opts.onRequest;
    if (onRequest) this.consumer.on(this.consumer.events.REQUEST, (e) => onRequest(e.payload.apiName));
    this.consumer.on(this.consumer.events.GROUP_JOIN, (e) => {
      this.joins += 1;
      this.assigned = [...(e.payload.memberAssignment[opts.topic] ?? [])].sort((a, b) => a - b);
      // A restarted consumer that joined again is healthy, with or without traffic.
      this.crashed = null;
      this.joined = true;
      this.settleJoin(null);
      opts.onJoin?.();
      void Promise.resolve(this.handler.onAssigned?.(this.assigned)).catch((err: unknown) => opts.logger?.error({ err }, 'onAssigned failed'));
    });
    this.consumer.on(this.consumer.events.CRASH, (e) => {
      this.crashed = String(e.payload.error?.message ?? e.payload.error);
      this.revoke(`crashed: ${this.crashed}`);
      opts.logger?.error({ restart: e.payload.restart }, `consumer ${opts.groupId} crashed: ${this.crashed}`);
      opts.onCrash?.(e.payload.restart);
      if (!e.payload.restart) this.terminal(`consumer ${opts.groupId} of ${opts.topic} stopped for good: ${this.crashed}`);
    });
    this.consumer.on(this.consumer.events.REBALANCING, () => this.revoke('the group is rebalancing'));
    this.consumer.on(this.consumer.events.STOP, () => this.revoke('stopped'));
  }

  /**
   * Nothing is consumed any more until the next join (a crash, a rebalance, a stop): the assignment
   * is forgotten and the handler told at once, so it stops acting as the partitions' owner (another
   * member may own them already).
   */
  private revoke(reason: string): void {
    this.assigned = [];
    try {
      this.handler.onRevoked?.(reason);
    } catch (err) {
      this.opts.logger?.error({ err }, 'onRevoked failed');
    }
  }

  private terminal(reason: string): void {
    this.running = false;
    this.settleJoin(new Error(reason));
    if (!this.stopping) this.opts.onTerminal?.(reason);
  }

  private settleJoin(err: Error | null): void {
    for (const w of [...this.joinWaiters]) w(err);
    this.joinWaiters.clear();
  }

  /**
   * Connects, subscribes and runs; resolves only once the consumer joined its group (fail closed):
   * rejects when it crashed for good or did not join within `joinTimeoutMs`.
   */
  async start(): Promise<void> {
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: this.opts.topic, fromBeginning: true });
    const joined = this.joinedOrFailed(this.opts.joinTimeoutMs ?? 30_000);
    joined.catch(() => undefined);
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.opts.concurrency,
      eachBatch: (p) => this.eachBatch(p),
    });
    this.running = true;
    await joined;
  }

  private joinedOrFailed(timeoutMs: number): Promise<void> {
    if (this.joined) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.joinWaiters.delete(done);
        reject(new Error(`consumer ${this.opts.groupId} did not join its group within ${timeoutMs} ms${this.crashed ? `: ${this.crashed}` : ''}`));
      }, timeoutMs);
      const done = (err: Error | null) => {
        clearTimeout(timer);
        if (err) reject(err);
        else resolve();
      };
      this.joinWaiters.add(done);
    });
  }

  private async eachBatch(p: EachBatchPayload): Promise<void> {
    const handedOverAt = Date.now();
    this.commitVia = p.commitOffsetsIfNecessary;
    try {
      await this.handleBatch(p);
    } finally {
      // Stopping: the pages handled so far are committed before kafkajs leaves the group.
      if (this.stopping) await this.commits.drain();
    }
    // kafkajs fetches again once every batch of this fetch has returned (they run concurrently).
    const pauseMs = fetchPauseMs(this.opts.fetchPaceMs ?? 0, handedOverAt, Date.now(), p.batch);
    if (pauseMs > 0 && !this.stopping && p.isRunning()) await new Promise((r) => setTimeout(r, pauseMs));
  }

  private async handleBatch(p: EachBatchPayload): Promise<void> {
    const { topic, partition } = p.batch;
    const records: ConsumedRecord[] = p.batch.messages.map((m) => {
      const timestamp = timestampOf(m.timestamp);
      return {
        topic,
        partition,
        offset: BigInt(m.offset),
        key: m.key ?? null,
        value: m.value ?? Buffer.alloc(0),
        ...(timestamp !== undefined ? { timestamp } : {}),
        ...(m.headers && Object.keys(m.headers).length > 0 ? { headers: headersOf(m.headers) } : {}),
      };
    });
    for (const page of cutPages(records, this.opts.pageRecords)) {
      if (!p.isRunning() || p.isStale()) return;
      try {
        await this.whileHeartbeating(p, () => this.handler.handlePage(page));
      } catch (err) {
        const delayMs = this.backoff.failed(partition, err, p.pause());
        this.opts.logger?.warn({ err, topic, partition, fromOffset: String(page.fromOffset), retryInMs: delayMs }, 'page failed; partition paused');
        return;
      }
      this.backoff.succeeded(partition);
      p.resolveOffset(String(page.toOffset));
      const last = page.records[page.records.length - 1]?.timestamp;
      this.commits.add({ partition, offset: page.toOffset + 1n, join: this.joins, ...(last !== undefined ? { metadata: commitPositionMetadata(last) } : {}) });
      await p.heartbeat();
    }
    this.crashed = null;
  }

  /** Runs `work` while heartbeating every second (kafkajs heartbeats only when asked). */
  private async whileHeartbeating(p: EachBatchPayload, work: () => Promise<void>): Promise<void> {
    // A failed heartbeat (rebalance) surfaces at the heartbeat or commit after the page.
    const timer = setInterval(() => void p.heartbeat().catch(() => undefined), HEARTBEAT_MS);
    try {
      await work();
    } finally {
      clearInterval(timer);
    }
  }

  /** Partitions assigned at the last rebalance. */
  assignment(): readonly number[] {
    return this.assigned;
  }

  /** Partitions paused after a failed page: attempts so far, the last error, when the next try runs. */
  retrying(): ReadonlyMap<number, { readonly attempts: number; readonly error: string; readonly retryAt: number }> {
    return this.backoff.state();
  }

  /** Running and not crashed since the last successful batch. */
  healthy(): { ok: boolean; detail: object } {
    return { ok: this.running && this.crashed === null, detail: { running: this.running, assigned: this.assigned, crashed: this.crashed } };
  }

  /** OffsetCommit requests sent so far (each carries every offset queued while the previous was in flight). */
  commitRequests(): number {
    return this.commits.requestsSent;
  }

  /** Stops fetching, lets the page in flight finish, sends the queued commits, leaves the group. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.running = false;
    this.backoff.clear();
    await this.commits.drain();
    await this.consumer.disconnect();
  }
}
