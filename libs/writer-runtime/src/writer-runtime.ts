import { randomBytes } from 'node:crypto';
import type { BusLogger } from '@qim/bus';
import { KafkaOutboxPublisher, TopicVerifier, createKafka, produceBudgetWithin, verifyTopics } from '@qim/bus';
import type { HistoryAuthorizer, MembershipDirectory, MessageReads } from '@qim/store-core';
import { DurableMessageCommitter, RecoveryRunner, systemClock } from '@qim/store-core';
import { PeriodicTask, ShutdownStack, TerminalFailure, isDevelopmentEnv, kafkaReadiness } from '@qim/service-kit';
import { openMessageBackend } from '@qim/backends';
import type { ReadinessCheck } from '@qim/service-kit';
import type { WriterConfig } from './config/writer-config';
import type { StartupLog } from '@qim/backends';
import type { AdmissionGate } from './admission';
import { AdmissionSender } from './admission';
import { admissionGate } from './admission-runtime';
import { admissionProbeTimings } from './delivery-alarms';
import { HybridLogicalClock } from './identity/hybrid-clock';
import { LeaseKeeper } from './identity/lease-keeper';
import { MessageIdSource } from './identity/message-id-source';
import { openCoordination } from '@qim/backends';
import { housekeepingLoop } from './housekeeping';
import { MembershipAuthorizer } from './membership-authorizer';
import { MessageSender } from './message-sender';
import { UnpublishableCommits, recoveryPass } from './recovery-pass';
import { replayAnswer } from './replay-answer';
import type { Sender } from './send-deadline';
import { DeadlineSender } from './send-deadline';
import { WriterMetrics } from './writer-metrics';

export interface WriterRuntime {
  /** Sends through the admission gate (when on), each bounded by `QIM_SEND_DEADLINE_MS` once admitted. */
  readonly sender: Sender;
  /** Backpressure from delivery; null when `QIM_ADMISSION_MAX_LAG_MS=0`. */
  readonly admission: AdmissionGate | null;
  /** The message store's reads (history pages, summaries), for the HTTP routes. */
  readonly store: MessageReads;
  readonly membership: MembershipDirectory;
  readonly authorizer: HistoryAuthorizer;
  readonly metrics: WriterMetrics;
  readonly readiness: readonly ReadinessCheck[];
  readonly stack: ShutdownStack;
  readonly writerId: number;
  /** Raised when the writer cannot go on (lease lost past `QIM_LEASE_REACQUIRE_MS`): the process must exit non-zero. */
  readonly terminal: TerminalFailure;
}

export interface WriterRuntimeLogger extends BusLogger {
  debug(obj: object, msg: string): void;
}

/**
 * Start-up of the writer, fail closed, in order: backend (migrate → connect → readiness) →
 * coordination (Redis or, in memory mode, in-process) → writer-id lease + HLC → Kafka topic check
 * (partitions; outside development also replicas and min.insync.replicas) and
 * idempotent outbox producer → recovery loop (commits claimed one by one, so writers share the
 * work) → housekeeping loop (stores that keep expired facts). Any failing step closes what was
 * opened and throws.
 */
export async function startWriterRuntime(config: WriterConfig, log: WriterRuntimeLogger): Promise<WriterRuntime> {
  const stack = new ShutdownStack();
  const step: StartupLog = (s, detail) => log.info({ step: s, ...detail }, `start-up: ${s}`);
  try {
    const metrics = new WriterMetrics();
    const terminal = new TerminalFailure();
    const backend = await openMessageBackend(config.backend, config.env, step);
    stack.push('message store', () => backend.close());

    const token = randomBytes(16).toString('hex');
    const coordination = await openCoordination(config.coordination, token, step);
    stack.push('coordination', () => coordination.close());

    const grant = await coordination.leases.acquire(config.lease.slots, config.lease.ttlMs, token);
    const hlc = new HybridLogicalClock(() => BigInt(Date.now()), grant.hlcFloor);
    const keeper = new LeaseKeeper(coordination.leases, grant, () => hlc.highWater(), {
      ttlMs: config.lease.ttlMs,
      reacquireMs: config.lease.reacquireMs,
      observeFloor: (floor) => hlc.observe(floor),
      onLost: (reason) => {
        metrics.leaseHeld.set(0);
        metrics.leaseLosses.inc();
        log.error({ writerId: grant.writerId }, `writer lease lost, sends stopped: ${reason}`);
      },
      onRegained: () => {
        metrics.leaseHeld.set(1);
        log.info({ writerId: grant.writerId }, 'writer lease re-acquired, sends resumed');
      },
      onTerminal: (reason) => terminal.raise(reason),
    });
    metrics.leaseHeld.set(1);
    keeper.start();
    stack.push('writer lease', () => keeper.stop());
    step('writer lease', { writerId: grant.writerId, hlcFloor: grant.hlcFloor.toString() });

    // One produce request, every attempt timing out, ends within the send deadline after its pace (then the producer fences).
    const budget = produceBudgetWithin(config.sendDeadlineMs, config.kafka.producePaceMs);
    const kafka = createKafka({ brokers: config.kafka.brokers, clientId: config.kafka.clientId, logger: log, requestTimeoutMs: budget.requestTimeoutMs });
    const topics = [{ topic: config.kafka.messagesTopic, partitions: config.kafka.messagesPartitions, replicationFactor: config.kafka.replication }];
    const durability = !isDevelopmentEnv(config.env);
    await verifyTopics(kafka, topics, { durability });
    const topicVerifier = new TopicVerifier(kafka);
    stack.push('kafka readiness admin', () => topicVerifier.close());
    const publisher = new KafkaOutboxPublisher(kafka, config.kafka.messagesTopic, {
      retries: budget.retries,
      ackTimeoutMs: budget.ackTimeoutMs,
      paceMs: config.kafka.producePaceMs,
      onRequest: (api) => metrics.kafkaRequests.inc({ client: 'outbox', api }),
    });
    await publisher.connect();
    stack.push('outbox producer', () => publisher.disconnect());
    step('kafka', { topic: config.kafka.messagesTopic, durability, produceBudget: budget });

    const committer = new DurableMessageCommitter(backend.store, publisher, metrics.commitSteps);
    const ids = new MessageIdSource(hlc, grant.writerId);
    const sender = new MessageSender({
      membership: coordination.membership,
      committer,
      issueId: () => {
        keeper.assertHeld();
        return ids.next();
      },
      maxFanout: config.maxFanout,
      maxEventBytes: () => publisher.maxEventBytes(),
      metrics,
      replayOf: (request) => replayAnswer(backend.store, committer, request),
    });

    const unpublishable = new UnpublishableCommits();
    const runner = new RecoveryRunner(backend.store, committer, {
      graceMs: BigInt(config.recovery.graceMs),
      maxItems: config.recovery.batch,
      clock: systemClock,
      claim: unpublishable.guard(async (key) => {
        const mine = await coordination.claims.claim(key, config.recovery.claimMs);
        metrics.recoveryClaims.inc({ result: mine ? 'taken' : 'held_elsewhere' });
        return mine;
      }),
    });
    const recovery = new PeriodicTask(() => recoveryPass(runner, metrics, log, unpublishable), {
      name: 'recovery',
      intervalMs: config.recovery.intervalMs,
      onError: (err) => log.error({ err }, 'recovery pass failed'),
    });
    recovery.start();
    stack.push('recovery loop', () => recovery.stop());

    const housekeeping = config.housekeeping === null ? null : housekeepingLoop(backend.store, { ...config.housekeeping, clock: systemClock }, metrics, log);
    if (housekeeping !== null) {
      housekeeping.start();
      stack.push('housekeeping loop', () => housekeeping.stop());
    }
    step('loops', { recovery: config.recovery, housekeeping: housekeeping === null ? 'off' : config.housekeeping });

    const admission = config.admission === null ? null : admissionGate(kafka, config.admission, metrics, log);
    if (admission !== null) {
      admission.gate.start();
      stack.push('admission gate', () => admission.close());
    }
    step('admission', config.admission === null ? { admission: 'off' } : { ...config.admission, ...admissionProbeTimings(config.admission) });
    const bounded = new DeadlineSender(sender, config.sendDeadlineMs, () => metrics.sendDeadlineExceeded.inc());

    return {
      // The fan-out is read (SCARD) only by a closed gate with a light lane (ADR-0023 decision 10).
      sender: admission === null ? bounded : new AdmissionSender(bounded, admission.gate, (r) => coordination.membership.count(r.tenantId, r.conversationId)),
      admission: admission?.gate ?? null,
      store: backend.store,
      membership: coordination.membership,
      authorizer: new MembershipAuthorizer(coordination.membership),
      metrics,
      readiness: [backend.readiness, keeper.readiness(), coordination.readiness, kafkaReadiness(topicVerifier, topics)],
      stack,
      writerId: grant.writerId,
      terminal,
    };
  } catch (err) {
    await stack.closeAll(5_000);
    throw err;
  }
}
