import { randomBytes } from 'node:crypto';
import type { BusLogger } from '@qim/bus';
import { KafkaOutboxPublisher, createKafka, verifyTopics } from '@qim/bus';
import type { HistoryAuthorizer, MessageStore } from '@qim/store-core';
import { DurableMessageCommitter, RecoveryRunner, systemClock } from '@qim/store-core';
import type { StartupLog } from '../backend/backend-types';
import { openMessageBackend } from '../backend/open-message-backend';
import type { WriterConfig } from '../config/writer-config';
import type { ReadinessCheck } from '../http/readiness';
import type { MembershipDirectory } from '../membership/membership-directory';
import { ShutdownStack } from '../lifecycle/shutdown-stack';
import { PeriodicTask } from '../lifecycle/periodic-task';
import { ServiceMetrics } from '../metrics/service-metrics';
import { HybridLogicalClock } from '../writer-identity/hybrid-clock';
import { LeaseKeeper } from '../writer-identity/lease-keeper';
import { MessageIdSource } from '../writer-identity/message-id-source';
import { kafkaReadiness } from '../http/kafka-readiness';
import { openCoordination } from './coordination';
import { MembershipAuthorizer } from './membership-authorizer';
import { MessageSender } from './message-sender';
import { recoveryPass } from './recovery-pass';

export interface WriterRuntime {
  readonly sender: MessageSender;
  readonly store: MessageStore;
  readonly membership: MembershipDirectory;
  readonly authorizer: HistoryAuthorizer;
  readonly metrics: ServiceMetrics;
  readonly readiness: readonly ReadinessCheck[];
  readonly stack: ShutdownStack;
  readonly writerId: number;
}

export interface WriterRuntimeLogger extends BusLogger {
  debug(obj: object, msg: string): void;
}

/**
 * Start-up of the writer, fail closed, in order: backend (migrate → connect → readiness) →
 * coordination (Redis or, in memory mode, in-process) → writer-id lease + HLC → Kafka topic check and
 * idempotent outbox producer → recovery loop. Any failing step closes what was opened and throws.
 */
export async function startWriterRuntime(config: WriterConfig, log: WriterRuntimeLogger): Promise<WriterRuntime> {
  const stack = new ShutdownStack();
  const step: StartupLog = (s, detail) => log.info({ step: s, ...detail }, `start-up: ${s}`);
  try {
    const metrics = new ServiceMetrics('writer');
    const backend = await openMessageBackend(config.backend, config.env, step);
    stack.push('message store', () => backend.close());

    const coordination = await openCoordination(config.backend.kind === 'memory' ? null : config.redisUrl, config.redisNamespace, step);
    stack.push('coordination', () => coordination.close());

    const token = randomBytes(16).toString('hex');
    const grant = await coordination.leases.acquire(config.lease.slots, config.lease.ttlMs, token);
    const hlc = new HybridLogicalClock(() => BigInt(Date.now()), grant.hlcFloor);
    const keeper = new LeaseKeeper(coordination.leases, grant, () => hlc.highWater(), {
      ttlMs: config.lease.ttlMs,
      onLost: (reason) => log.error({ writerId: grant.writerId }, `writer lease lost, sends stopped: ${reason}`),
    });
    keeper.start();
    stack.push('writer lease', () => keeper.stop());
    step('writer lease', { writerId: grant.writerId, hlcFloor: grant.hlcFloor.toString() });

    const kafka = createKafka({ brokers: config.kafka.brokers, clientId: config.kafka.clientId, logger: log });
    const topics = [{ topic: config.kafka.messagesTopic, partitions: config.kafka.messagesPartitions, replicationFactor: config.kafka.replication }];
    await verifyTopics(kafka, topics);
    const publisher = new KafkaOutboxPublisher(kafka, config.kafka.messagesTopic);
    await publisher.connect();
    stack.push('outbox producer', () => publisher.disconnect());
    step('kafka', { topic: config.kafka.messagesTopic });

    const committer = new DurableMessageCommitter(backend.store, publisher);
    const ids = new MessageIdSource(hlc, grant.writerId);
    const sender = new MessageSender({
      membership: coordination.membership,
      committer,
      issueId: () => {
        keeper.assertHeld();
        return ids.next();
      },
      maxFanout: config.maxFanout,
      metrics,
    });

    const runner = new RecoveryRunner(backend.store, committer, {
      graceMs: BigInt(config.recovery.graceMs),
      maxItems: config.recovery.batch,
      clock: systemClock,
    });
    const recovery = new PeriodicTask(() => recoveryPass(runner, metrics, log), {
      name: 'recovery',
      intervalMs: config.recovery.intervalMs,
      onError: (err) => log.error({ err }, 'recovery pass failed'),
    });
    recovery.start();
    stack.push('recovery loop', () => recovery.stop());

    return {
      sender,
      store: backend.store,
      membership: coordination.membership,
      authorizer: new MembershipAuthorizer(coordination.membership),
      metrics,
      readiness: [backend.readiness, keeper.readiness(), coordination.readiness, kafkaReadiness(kafka, topics)],
      stack,
      writerId: grant.writerId,
    };
  } catch (err) {
    await stack.closeAll(5_000);
    throw err;
  }
}
