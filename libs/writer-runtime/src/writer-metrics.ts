import { Counter, Gauge, Histogram } from 'prom-client';
import { ServiceMetrics } from '@qim/service-kit';
import type { CommitStepObserver } from '@qim/store-core';

/**
 * The writer process's metrics: the ones both services have (`ServiceMetrics`: HTTP, Kafka
 * requests, read budget) and the writer's own — sends, commit steps, recovery, housekeeping,
 * admission, the lease — all in one registry, labelled `service="writer"`.
 */
export class WriterMetrics extends ServiceMetrics {
  /** Sends by outcome: committed, replay, conflict, forbidden, failed. */
  readonly commits = new Counter({
    name: 'qim_commits_total',
    help: 'Send attempts by outcome',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  /** Recovery loop actions: examined, completed, failed. */
  readonly recoveryActions = new Counter({
    name: 'qim_recovery_actions_total',
    help: 'Commits examined/completed/failed by the recovery loop',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  /** Sends answered 503 because they passed `QIM_SEND_DEADLINE_MS` (their commits go on). */
  readonly sendDeadlineExceeded: Counter;
  /** Recovery claims per commit: `taken` (this writer resumes it) or `held_elsewhere` (left to another writer). */
  readonly recoveryClaims: Counter<'result'>;
  /** Housekeeping: facts examined per pass kind (`commit_aux`, `expired_history`). */
  readonly housekeepingExamined: Counter<'kind'>;
  /** Housekeeping: facts physically reclaimed per pass kind. */
  readonly housekeepingReclaimed: Counter<'kind'>;
  /** 1 when the last pass of a kind stopped at its batch bound with candidates left, else 0. */
  readonly housekeepingBacklog: Gauge<'kind'>;
  /** Duration of each commit step that succeeded: reserve, record, publish (Kafka acknowledged), commit. */
  readonly commitStepSeconds: Histogram<'step'>;
  /** The committer's step observer, feeding `commitStepSeconds`. */
  readonly commitSteps: CommitStepObserver;
  /** 1 while the admission gate holds sends (delivery too far behind), else 0. */
  readonly admissionClosed: Gauge;
  /**
   * Sends that found the admission gate closed, by outcome: `light` let through at once (a small
   * conversation within the light lane's budget), `admitted` once it opened, or `refused` (503) after the wait.
   */
  readonly admissionWaits: Counter<'outcome'>;
  /** The age of the oldest record waiting, as the admission gate last read it, per watched consumer group (seconds; -1: unknown). */
  readonly deliveryLagSeconds: Gauge<'group'>;
  /** The time the group's backlog needs at its measured pace, as last read (seconds; -1: unknown). */
  readonly deliveryDrainSeconds: Gauge<'group'>;
  /** 1 while this writer holds its writer-id lease (sends accepted), 0 while it is lost. */
  readonly leaseHeld: Gauge;
  /** Writer-id leases lost (each loss once, whether or not it was taken back). */
  readonly leaseLosses: Counter;
  /** Partitions of the group stalled (position still for the stall window while records wait): not counted for admission; their own alarm. */
  readonly deliveryStalledPartitions: Gauge<'group'>;
  /** Partitions of the group replaying what an older mailbox epoch delivered: not counted for admission. */
  readonly deliveryReplayingPartitions: Gauge<'group'>;

  /** `withDefaults` false leaves out the process's default metrics (tests that build many in one process). */
  constructor(withDefaults = true) {
    super('writer', withDefaults);
    const registers = [this.registry];
    this.sendDeadlineExceeded = new Counter({ name: 'qim_send_deadline_exceeded_total', help: 'Sends answered 503 past QIM_SEND_DEADLINE_MS', registers });
    this.recoveryClaims = new Counter({ name: 'qim_recovery_claims_total', help: 'Per-commit recovery claims by result', labelNames: ['result'], registers });
    this.housekeepingExamined = new Counter({
      name: 'qim_housekeeping_examined_total',
      help: 'Expired facts examined by housekeeping',
      labelNames: ['kind'],
      registers,
    });
    this.housekeepingReclaimed = new Counter({
      name: 'qim_housekeeping_reclaimed_total',
      help: 'Expired facts reclaimed by housekeeping',
      labelNames: ['kind'],
      registers,
    });
    this.housekeepingBacklog = new Gauge({
      name: 'qim_housekeeping_backlog',
      help: '1 when the last housekeeping pass left candidates beyond its batch',
      labelNames: ['kind'],
      registers,
    });
    this.commitStepSeconds = new Histogram({
      name: 'qim_commit_step_seconds',
      help: 'Duration of each commit step that succeeded (reserve, record, publish, commit)',
      labelNames: ['step'],
      buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.035, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.admissionClosed = new Gauge({ name: 'qim_admission_closed', help: '1 while the admission gate holds sends because delivery is behind', registers });
    this.admissionWaits = new Counter({
      name: 'qim_admission_waits_total',
      help: 'Sends that found the admission gate closed, by outcome',
      labelNames: ['outcome'],
      registers,
    });
    this.deliveryLagSeconds = new Gauge({
      name: 'qim_delivery_lag_seconds',
      help: 'Age of the oldest record waiting per mailbox consumer group, read by the admission gate (-1 unknown)',
      labelNames: ['group'],
      registers,
    });
    this.deliveryDrainSeconds = new Gauge({
      name: 'qim_delivery_drain_seconds',
      help: 'Time the backlog of each mailbox consumer group needs at its measured pace (-1 unknown)',
      labelNames: ['group'],
      registers,
    });
    this.leaseHeld = new Gauge({
      name: 'qim_writer_lease_held',
      help: '1 while the writer holds its writer-id lease (sends accepted), 0 while lost',
      registers,
    });
    this.leaseLosses = new Counter({ name: 'qim_writer_lease_losses_total', help: 'Writer-id leases lost (sends stopped until taken back)', registers });
    this.deliveryStalledPartitions = new Gauge({
      name: 'qim_delivery_stalled_partitions',
      help: 'Partitions of each mailbox consumer group whose position stood still while records waited (stalled or refused; not counted for admission)',
      labelNames: ['group'],
      registers,
    });
    this.deliveryReplayingPartitions = new Gauge({
      name: 'qim_delivery_replaying_partitions',
      help: 'Partitions of each mailbox shard group replaying what an older epoch delivered (not counted for admission)',
      labelNames: ['group'],
      registers,
    });
    const steps = this.commitStepSeconds;
    this.commitSteps = { step: (step, seconds) => steps.observe({ step }, seconds) };
  }
}
