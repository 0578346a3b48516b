import type { BusLogger } from '@qim/bus';
import { DispatchProducer, PartitionConsumer, createKafka, verifyTopics } from '@qim/bus';
import type { MailboxStore } from '@qim/store-core';
import type { MailboxBackend, StartupLog } from '../backend/backend-types';
import { openMailboxBackend } from '../backend/open-mailbox-backend';
import type { MailboxConfig } from '../config/mailbox-config';
import { kafkaReadiness } from '../http/kafka-readiness';
import type { ReadinessCheck } from '../http/readiness';
import { ShutdownStack } from '../lifecycle/shutdown-stack';
import { ServiceMetrics } from '../metrics/service-metrics';
import { Housekeeping } from './housekeeping';
import { MailboxReader } from './mailbox-reader';
import { MessageRouter } from './message-router';
import { ShardProcessor } from './shard-processor';
import { ShardWorker } from './shard-worker';
import { ShardStatusReader } from './shard-status';

export interface MailboxRuntime {
  readonly reader: MailboxReader;
  readonly status: ShardStatusReader;
  readonly metrics: ServiceMetrics;
  readonly readiness: readonly ReadinessCheck[];
  readonly stack: ShutdownStack;
}

/**
 * Start-up of the mailbox, fail closed: backend (migrate → connect → readiness) → Kafka topics
 * verified (dispatch partitions = QIM_MAILBOX_SHARDS) → dispatch producer → shard workers → router
 * → housekeeping. Shutdown runs in reverse: housekeeping, router and shard consumers stop (commit
 * only proven offsets), producer flushes, stores close.
 */
export async function startMailboxRuntime(config: MailboxConfig, log: BusLogger): Promise<MailboxRuntime> {
  const stack = new ShutdownStack();
  const step: StartupLog = (s, detail) => log.info({ step: s, ...detail }, `start-up: ${s}`);
  try {
    const metrics = new ServiceMetrics('mailbox');
    const backend: MailboxBackend = await openMailboxBackend(
      config.backend,
      config.env,
      { epoch: config.epoch, gc: { entryRetentionMs: config.entryRetentionMs, dispatchGcDelayMs: config.dispatchGcDelayMs } },
      step,
    );
    stack.push('mailbox stores', () => backend.close());
    const storeFor = (shard: number): Promise<MailboxStore> => backend.storeFor(shard);

    const kafka = createKafka({ brokers: config.kafka.brokers, clientId: config.kafka.clientId, logger: log });
    const topics = [
      { topic: config.kafka.messagesTopic, partitions: config.kafka.messagesPartitions, replicationFactor: config.kafka.replication },
      { topic: config.kafka.dispatchTopic, partitions: config.shards, replicationFactor: config.kafka.replication },
    ];
    await verifyTopics(kafka, topics);
    step('kafka topics', { shards: config.shards });

    const producer = new DispatchProducer(kafka, config.kafka.dispatchTopic);
    await producer.connect();
    stack.push('dispatch producer', () => producer.disconnect());

    const worker = new ShardWorker(async (shard) => new ShardProcessor(shard, await storeFor(shard), { chunkSize: config.chunkSize, metrics }));
    const shardConsumer = new PartitionConsumer(kafka, worker, {
      groupId: config.shardGroup,
      topic: config.kafka.dispatchTopic,
      concurrency: Math.min(config.shards, 16),
      logger: log,
      onCommitted: (p, o) => {
        worker.noteCommitted(p, o);
        metrics.committedOffset.set({ role: 'shard', partition: String(p) }, Number(o));
      },
    });
    await shardConsumer.start();
    stack.push('shard consumer', () => shardConsumer.stop());

    const router = new MessageRouter(producer, config.shards, metrics);
    const routerConsumer = new PartitionConsumer(kafka, router, {
      groupId: config.routerGroup,
      topic: config.kafka.messagesTopic,
      concurrency: 4,
      logger: log,
      onCommitted: (p, o) => metrics.committedOffset.set({ role: 'router', partition: String(p) }, Number(o)),
    });
    await routerConsumer.start();
    stack.push('router consumer', () => routerConsumer.stop());
    step('consumers', { router: config.routerGroup, shards: config.shardGroup });

    const housekeeping = new Housekeeping(worker, config, log);
    housekeeping.start();
    stack.push('housekeeping', () => housekeeping.stop());

    const consumerCheck = (name: string, c: PartitionConsumer): ReadinessCheck => ({
      name,
      check: async () => c.healthy(),
    });
    return {
      reader: new MailboxReader(storeFor, config.shards, config.epoch),
      status: new ShardStatusReader(storeFor, worker, kafka, config),
      metrics,
      readiness: [
        backend.readiness,
        kafkaReadiness(kafka, topics),
        consumerCheck('router-consumer', routerConsumer),
        consumerCheck('shard-consumer', shardConsumer),
        { name: 'lanes', check: async () => worker.readiness() },
      ],
      stack,
    };
  } catch (err) {
    await stack.closeAll(5_000);
    throw err;
  }
}
