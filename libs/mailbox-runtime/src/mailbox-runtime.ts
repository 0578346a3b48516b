import type { BusLogger } from '@qim/bus';
import {
  DeadLetterSink,
  DispatchProducer,
  GroupOffsetsReader,
  PartitionConsumer,
  TopicVerifier,
  createKafka,
  verifyTopics,
  withDeadLetterTopics,
} from '@qim/bus';
import type { MailboxStore } from '@qim/store-core';
import { ShutdownStack, TerminalFailure, isDevelopmentEnv, kafkaReadiness, processReadBudget } from '@qim/service-kit';
import { openMailboxBackend } from '@qim/backends';
import type { ReadinessCheck } from '@qim/service-kit';
import type { MailboxConfig } from './config/mailbox-config';
import type { MailboxBackend, StartupLog } from '@qim/backends';
import { FrontierBoard } from './frontier-board';
import { MailboxMetrics } from './mailbox-metrics';
import { MailboxReader } from './mailbox-reader';
import { MessageRouter } from './message-router';
import { ShardStatusReader } from './shard-status';
import { ShardWorker } from './shard-worker';
import { mailboxTopicSpecs } from './topics-step';

export interface MailboxRuntime {
  readonly reader: MailboxReader;
  readonly status: ShardStatusReader;
  readonly metrics: MailboxMetrics;
  readonly readiness: readonly ReadinessCheck[];
  readonly stack: ShutdownStack;
  /** Raised when a consumer stopped for good: the process exits non-zero with the reason. */
  readonly terminal: TerminalFailure;
}

/**
 * Start-up of the mailbox, fail closed: backend (migrate → connect → readiness) → Kafka topics and
 * their dead-letter topics verified (dispatch partitions = QIM_MAILBOX_SHARDS; outside development
 * also replicas and min.insync.replicas) → dispatch producer → dead-letter sink → shard consumer
 * (joined its group; each assigned shard's frontier compared with the partition's offsets and the
 * group's committed offset before it runs; pages applied, frontier advanced, offset committed behind
 * it) → router consumer (joined). Shutdown runs in reverse (after HTTP, which releases waiting syncs
 * first): the consumers stop (the page in flight finishes and commits itself while the producer and
 * the stores are still open), the dead-letter sink and the producer flush, the stores close. A
 * consumer that kafkajs stopped for good raises `terminal`.
 */
export async function startMailboxRuntime(config: MailboxConfig, log: BusLogger): Promise<MailboxRuntime> {
  const stack = new ShutdownStack();
  const step: StartupLog = (s, detail) => log.info({ step: s, ...detail }, `start-up: ${s}`);
  try {
    const metrics = new MailboxMetrics();
    const backend: MailboxBackend = await openMailboxBackend(
      config.backend,
      config.env,
      {
        epoch: config.epoch,
        gc: { entryRetentionMs: config.entryRetentionMs, dispatchDedupeMs: config.dispatchDedupeMs },
        applyConcurrency: config.applyConcurrency,
        clockSkewAllowanceMs: config.clockSkewAllowanceMs,
      },
      step,
    );
    stack.push('mailbox stores', () => backend.close());
    const storeFor = (shard: number): Promise<MailboxStore> => backend.storeFor(shard);

    const kafka = createKafka({ brokers: config.kafka.brokers, clientId: config.kafka.clientId, logger: log });
    const topics = mailboxTopicSpecs(config, config.shards);
    const terminal = new TerminalFailure();
    const durability = !isDevelopmentEnv(config.env);
    await verifyTopics(kafka, withDeadLetterTopics(topics), { durability });
    step('kafka topics', { shards: config.shards, durability });
    const offsets = new GroupOffsetsReader(kafka);
    stack.push('kafka offsets reader', () => offsets.close());
    const topicVerifier = new TopicVerifier(kafka);
    stack.push('kafka readiness admin', () => topicVerifier.close());

    const producer = new DispatchProducer(kafka, config.kafka.dispatchTopic, {
      paceMs: config.kafka.producePaceMs,
      onRequest: (api) => metrics.kafkaRequests.inc({ client: 'dispatch', api }),
    });
    await producer.connect();
    stack.push('dispatch producer', () => producer.disconnect());

    const deadLetters = new DeadLetterSink(kafka);
    await deadLetters.connect();
    stack.push('dead-letter sink', () => deadLetters.close());

    const board = new FrontierBoard();
    const worker = new ShardWorker({
      storeFor,
      board,
      metrics,
      log,
      onPoison: deadLetters.handler,
      guard: {
        epoch: config.epoch,
        pageRecords: config.pageRecords,
        positions: async (shard) => {
          const p = (await offsets.offsets(config.shardGroup, config.kafka.dispatchTopic)).find((x) => x.partition === shard);
          if (!p) throw new Error(`dispatch topic ${config.kafka.dispatchTopic} has no partition ${shard}`);
          return { low: p.low, end: p.end, committed: p.committed };
        },
      },
    });
    const shardConsumer = new PartitionConsumer(kafka, worker, {
      groupId: config.shardGroup,
      topic: config.kafka.dispatchTopic,
      concurrency: Math.min(config.shards, 16),
      pageRecords: config.pageRecords,
      logger: log,
      onCommitted: (p, o) => metrics.committedOffset.set({ role: 'shard', partition: String(p) }, Number(o)),
      onCommitRequest: (result) => metrics.offsetCommitRequests.inc({ role: 'shard', result }),
      onJoin: () => metrics.consumerJoins.inc({ role: 'shard' }),
      onRequest: (api) => metrics.kafkaRequests.inc({ client: 'shards', api }),
      onCrash: (restart) => metrics.consumerCrashes.inc({ role: 'shard', restart: String(restart) }),
      onTerminal: (reason) => terminal.raise(reason),
      commitIntervalMs: config.kafkaCommitIntervalMs,
      fetchMinBytes: config.kafkaFetchMinBytes,
      fetchMaxWaitMs: config.kafkaFetchMaxWaitMs,
      fetchPaceMs: config.kafkaFetchPaceMs,
    });
    stack.push('shard consumer', () => shardConsumer.stop());
    await shardConsumer.start();

    const router = new MessageRouter({ producer, shardCount: config.shards, metrics, log, onPoison: deadLetters.handler });
    const routerConsumer = new PartitionConsumer(kafka, router, {
      groupId: config.routerGroup,
      topic: config.kafka.messagesTopic,
      concurrency: Math.min(config.kafka.messagesPartitions, 16),
      pageRecords: config.pageRecords,
      logger: log,
      onCommitted: (p, o) => metrics.committedOffset.set({ role: 'router', partition: String(p) }, Number(o)),
      onCommitRequest: (result) => metrics.offsetCommitRequests.inc({ role: 'router', result }),
      onJoin: () => metrics.consumerJoins.inc({ role: 'router' }),
      onRequest: (api) => metrics.kafkaRequests.inc({ client: 'router', api }),
      onCrash: (restart) => metrics.consumerCrashes.inc({ role: 'router', restart: String(restart) }),
      onTerminal: (reason) => terminal.raise(reason),
      commitIntervalMs: config.kafkaCommitIntervalMs,
      fetchMinBytes: config.kafkaFetchMinBytes,
      fetchMaxWaitMs: config.kafkaFetchMaxWaitMs,
      fetchPaceMs: config.kafkaFetchPaceMs,
    });
    stack.push('router consumer', () => routerConsumer.stop());
    await routerConsumer.start();
    step('consumers', { router: config.routerGroup, shards: config.shardGroup, pageRecords: config.pageRecords });

    const consumerCheck = (name: string, c: PartitionConsumer): ReadinessCheck => ({
      name,
      check: async () => c.healthy(),
    });
    return {
      reader: new MailboxReader({
        storeFor,
        shardCount: config.shards,
        epoch: config.epoch,
        board,
        repeatHoldMs: config.syncRepeatHoldMs,
        onScan: (result) => metrics.syncScans.inc({ result }),
        onWokenRead: () => metrics.syncWokenStoreCalls.inc(),
        onHold: () => metrics.syncHeld.inc(),
        readBudget: processReadBudget(config.readBudget, metrics),
      }),
      status: new ShardStatusReader({
        storeFor,
        worker,
        offsets,
        retrying: () => shardConsumer.retrying(),
        config: { shards: config.shards, epoch: config.epoch, shardGroup: config.shardGroup, dispatchTopic: config.kafka.dispatchTopic },
      }),
      metrics,
      readiness: [
        backend.readiness,
        kafkaReadiness(topicVerifier, topics),
        consumerCheck('router-consumer', routerConsumer),
        consumerCheck('shard-consumer', shardConsumer),
        { name: 'shards', check: () => worker.readiness() },
      ],
      stack,
      terminal,
    };
  } catch (err) {
    await stack.closeAll(5_000);
    throw err;
  }
}
