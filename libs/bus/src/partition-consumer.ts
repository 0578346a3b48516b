import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import type { BusLogger } from './kafka-factory';
import type { RecordHandler } from './record-handler';

export interface PartitionConsumerOptions {
  readonly groupId: string;
  readonly topic: string;
  /** Partitions processed concurrently by this process (each partition stays sequential). */
  readonly concurrency: number;
  readonly logger?: BusLogger;
  /** Called after each commit with (partition, committed next offset). */
  readonly onCommitted?: (partition: number, offset: bigint) => void;
}

/**
 * A kafkajs consumer group member with manual commits only (`autoCommit: false`): after each
 * handled record (and at the end of each batch) it commits `handler.committable(partition)` when
 * that moved forward. Redelivery after a crash or rebalance starts from the last committed offset,
 * so the handler must be idempotent.
 */
export class PartitionConsumer {
  private readonly consumer: Consumer;
  private readonly committed = new Map<number, bigint>();
  private assigned: readonly number[] = [];
  private running = false;
  private crashed: string | null = null;

  constructor(
    kafka: Kafka,
    private readonly handler: RecordHandler,
    private readonly opts: PartitionConsumerOptions,
  ) {
    this.consumer = kafka.consumer({
      groupId: opts.groupId,
      sessionTimeout: 15_000,
      rebalanceTimeout: 20_000,
      heartbeatInterval: 1_000,
      maxWaitTimeInMs: 250,
      allowAutoTopicCreation: false,
    });
    this.consumer.on(this.consumer.events.GROUP_JOIN, (e) => {
      this.assigned = [...(e.payload.memberAssignment[opts.topic] ?? [])].sort((a, b) => a - b);
      this.committed.clear();
      void Promise.resolve(this.handler.onAssigned?.(this.assigned)).catch((err: unknown) =>
        opts.logger?.error({ err }, 'onAssigned failed'),
      );
    });
    this.consumer.on(this.consumer.events.CRASH, (e) => {
      this.crashed = String(e.payload.error?.message ?? e.payload.error);
      opts.logger?.error({ restart: e.payload.restart }, `consumer ${opts.groupId} crashed: ${this.crashed}`);
    });
  }

  async start(): Promise<void> {
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: this.opts.topic, fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.opts.concurrency,
      eachBatch: (p) => this.eachBatch(p),
    });
    this.running = true;
  }

  private async eachBatch(p: EachBatchPayload): Promise<void> {
    const { batch } = p;
    for (const m of batch.messages) {
      if (!p.isRunning() || p.isStale()) break;
      await this.handler.handle({
        topic: batch.topic,
        partition: batch.partition,
        offset: BigInt(m.offset),
        key: m.key ?? null,
        value: m.value ?? Buffer.alloc(0),
      });
      p.resolveOffset(m.offset);
      await this.commitProven(batch.partition);
      await p.heartbeat();
    }
    this.crashed = null;
  }

  /** Commits the handler's proven offset for `partition` when it moved forward. */
  private async commitProven(partition: number): Promise<void> {
    const next = this.handler.committable(partition);
    if (next === null || next <= (this.committed.get(partition) ?? -1n)) return;
    await this.consumer.commitOffsets([{ topic: this.opts.topic, partition, offset: next.toString() }]);
    this.committed.set(partition, next);
    this.opts.onCommitted?.(partition, next);
  }

  /** Partitions assigned at the last rebalance. */
  assignment(): readonly number[] {
    return this.assigned;
  }

  /** Running and not crashed since the last successful batch. */
  healthy(): { ok: boolean; detail: object } {
    return { ok: this.running && this.crashed === null, detail: { running: this.running, assigned: this.assigned, crashed: this.crashed } };
  }

  /** Stops fetching, lets the in-flight record finish, commits what is proven, leaves the group. */
  async stop(): Promise<void> {
    if (!this.running) return void (await this.consumer.disconnect());
    this.running = false;
    await this.consumer.stop();
    for (const partition of this.assigned) {
      await this.commitProven(partition).catch((err: unknown) => this.opts.logger?.warn({ err }, 'final commit failed'));
    }
    await this.consumer.disconnect();
  }
}
