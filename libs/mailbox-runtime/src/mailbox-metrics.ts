import { Counter, Gauge, Histogram } from 'prom-client';
import { ServiceMetrics } from '@qim/service-kit';

/** Delivery latency buckets (s): fine below a second, where the product's targets are. */
const DELIVERY_BUCKETS = [0.002, 0.005, 0.01, 0.02, 0.035, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/**
 * The mailbox process's metrics: the ones both services have (`ServiceMetrics`: HTTP, Kafka
 * requests, read budget) and the mailbox's own — delivery latency, the router, the shard workers,
 * the consumers, the device syncs — all in one registry, labelled `service="mailbox"`.
 */
export class MailboxMetrics extends ServiceMetrics {
  /** Time from a message's created_at to its dispatch being applied (visible) in a shard. */
  readonly dispatchLagSeconds = new Histogram({
    name: 'qim_dispatch_lag_seconds',
    help: 'created_at → dispatch applied and visible, per shard',
    labelNames: ['shard'] as const,
    buckets: DELIVERY_BUCKETS,
    registers: [this.registry],
  });
  /**
   * The earlier steps of delivery, from a message's created_at (writer clock) to: `routed` — its
   * dispatch records acknowledged by Kafka at the router; `applying` — its dispatch's page handed to
   * the shard store. With `qim_dispatch_lag_seconds` (→ visible) they say where delivery time goes.
   */
  readonly deliveryStageSeconds = new Histogram({
    name: 'qim_delivery_stage_seconds',
    help: 'created_at → routed (dispatch acknowledged) / applying (page handed to the store)',
    labelNames: ['stage'] as const,
    buckets: DELIVERY_BUCKETS,
    registers: [this.registry],
  });
  /** Router: dispatch records produced. */
  readonly routedDispatches = new Counter({
    name: 'qim_router_dispatches_total',
    help: 'Dispatch records produced by the router',
    registers: [this.registry],
  });
  /** Shard frontier (dispatch offset up to which every record is applied) per shard; -1 = none. */
  readonly shardFrontier = new Gauge({
    name: 'qim_shard_frontier',
    help: 'Shard frontier F (dispatch-topic offset), -1 when none',
    labelNames: ['shard'] as const,
    registers: [this.registry],
  });
  /** 1 while a shard is stalled by a frontier gap (a page starting above F + 1), else 0. */
  readonly shardStalled = new Gauge({
    name: 'qim_shard_stalled',
    help: '1 while the shard is stalled by a frontier gap',
    labelNames: ['shard'] as const,
    registers: [this.registry],
  });
  /**
   * 1 while this process refuses a shard it was assigned (its store and Kafka disagree: the status
   * route names the reason and the resolving command), else 0. Readiness stays green: one refused
   * shard is not a reason to take the process out of the load balancer.
   */
  readonly shardRefused = new Gauge({
    name: 'qim_shard_refused',
    help: '1 while an assigned shard is refused (store and Kafka disagree; see /v1/shards/N/status)',
    labelNames: ['shard'] as const,
    registers: [this.registry],
  });
  /** Stalls entered (frontier gaps met; each stall is counted once, however often it is retried). */
  readonly shardStalls = new Counter({
    name: 'qim_shard_stalls_total',
    help: 'Frontier-gap stalls entered per shard',
    labelNames: ['shard'] as const,
    registers: [this.registry],
  });
  /** Dispatch records applied, by outcome: applied, duplicate, conflict. */
  readonly dispatchOutcomes = new Counter({
    name: 'qim_dispatch_outcomes_total',
    help: 'Dispatch records by outcome of applyPage (applied, duplicate, conflict)',
    labelNames: ['shard', 'outcome'] as const,
    registers: [this.registry],
  });
  /** Mailbox entries written live, or recorded as already expired (proof only). */
  readonly mailboxEntries = new Counter({
    name: 'qim_mailbox_entries_total',
    help: 'Mailbox entries by state (written, expired)',
    labelNames: ['shard', 'state'] as const,
    registers: [this.registry],
  });
  /** Time to apply one page (decode → applyPage), per shard. */
  readonly pageSeconds = new Histogram({
    name: 'qim_mailbox_page_seconds',
    help: 'Time to apply one dispatch page',
    labelNames: ['shard'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  /**
   * Dispatch pages that failed on a shard, by error code (`UNAVAILABLE` a store that did not answer,
   * `APPLY_TIMEOUT` an apply past the worker's bound, `FRONTIER_GAP`, …); each is retried with backoff.
   */
  readonly shardPageFailures = new Counter({
    name: 'qim_shard_page_failures_total',
    help: 'Dispatch pages that failed on a shard (retried with backoff), per shard and error code',
    labelNames: ['shard', 'code'] as const,
    registers: [this.registry],
  });
  /** Records that could not be decoded or failed validation (dead-lettered; their offsets carry nothing). */
  readonly poisonRecords = new Counter({
    name: 'qim_poison_records_total',
    help: 'Undecodable or invalid records skipped, per consumer role and partition',
    labelNames: ['role', 'partition'] as const,
    registers: [this.registry],
  });
  /** Consumer group joins per consumer role: the first join and every rejoin (rebalance, restart). */
  readonly consumerJoins = new Counter({
    name: 'qim_consumer_joins_total',
    help: 'Kafka consumer group joins per role (first join and every rejoin)',
    labelNames: ['role'] as const,
    registers: [this.registry],
  });
  /** Consumer crashes kafkajs reported, per role and whether it restarted the consumer. */
  readonly consumerCrashes = new Counter({
    name: 'qim_consumer_crashes_total',
    help: 'Kafka consumer crashes per role (restart = kafkajs restarts it)',
    labelNames: ['role', 'restart'] as const,
    registers: [this.registry],
  });
  /** Kafka offset committed per consumer partition (next offset to read). */
  readonly committedOffset = new Gauge({
    name: 'qim_kafka_committed_offset',
    help: 'Committed Kafka offset (next to read) per role and partition',
    labelNames: ['role', 'partition'] as const,
    registers: [this.registry],
  });
  /** OffsetCommit requests per consumer role (each carries every page handled while the previous was in flight). */
  readonly offsetCommitRequests = new Counter({
    name: 'qim_kafka_offset_commit_requests_total',
    help: 'OffsetCommit requests sent per consumer role, and how they ended (ok, failed)',
    labelNames: ['role', 'result'] as const,
    registers: [this.registry],
  });

  /** Device syncs' range scans: sent to the store, or skipped because the shard owner proved the cursor current. */
  readonly syncScans = new Counter({
    name: 'qim_sync_scans_total',
    help: 'Range scans of device syncs: read (sent to the store) or skipped (the cursor proven current in process)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  /** Store calls of woken long polls' scans: one per store and event-loop turn, carrying every scan woken then (ADR-0041). */
  readonly syncWokenStoreCalls = new Counter({
    name: 'qim_sync_woken_store_calls_total',
    help: "Store calls of woken long polls' range scans: one per store and event-loop turn, carrying every scan woken then",
    registers: [this.registry],
  });

  /** Device syncs held because they repeated the cursor an answer gave the user within QIM_SYNC_REPEAT_HOLD_MS and found nothing new. */
  readonly syncHeld = new Counter({
    name: 'qim_sync_held_total',
    help: 'Device syncs held because they repeated the cursor an answer gave the user within the repeat hold and found nothing new',
    registers: [this.registry],
  });

  /** `withDefaults` false leaves out the process's default metrics (tests that build many in one process). */
  constructor(withDefaults = true) {
    super('mailbox', withDefaults);
  }
}
