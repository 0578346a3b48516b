import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The Prometheus metrics of one service process, in a registry of its own (no global state, so
 * tests can build many apps in one process): the registry, the process's default metrics and the
 * metrics both services have (HTTP requests, Kafka requests, the read budget). Each service's own
 * metrics are in its runtime, in a subclass over the same registry (`WriterMetrics` in
 * `@qim/writer-runtime`, `MailboxMetrics` in `@qim/mailbox-runtime`).
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  /** HTTP request latency by method, route pattern and status. */
  readonly requestSeconds = new Histogram({
    name: 'qim_http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  /** Kafka requests a broker answered, per client of this service (outbox, dispatch, router, shards) and API. */
  readonly kafkaRequests = new Counter({
    name: 'qim_kafka_requests_total',
    help:
      'Kafka requests answered by a broker, per client of this service ' +
      '(outbox, dispatch, router, shards) and API (Produce, Fetch, OffsetCommit, Heartbeat, ...)',
    labelNames: ['client', 'api'] as const,
    registers: [this.registry],
  });

  /** Page reads (sync, history) refused with 503 because the process's read budget (QIM_READ_BUDGET_BYTES) stayed in use for the whole wait. */
  readonly readBudgetRefused = new Counter({
    name: 'qim_read_budget_refused_total',
    help: 'Page reads (sync, history) refused with 503 + Retry-After because the read budget of the process stayed in use for the whole wait',
    registers: [this.registry],
  });

  /** Page reads (sync, history) that ran with less than their max_bytes because only part of the read budget was free: a shorter page, not a 503. */
  readonly readBudgetShrunk = new Counter({
    name: 'qim_read_budget_shrunk_total',
    help: 'Page reads (sync, history) served as a shorter page because only part of their max_bytes was free in the read budget of the process',
    registers: [this.registry],
  });

  constructor(
    readonly service: string,
    withDefaults = true,
  ) {
    this.registry.setDefaultLabels({ service });
    if (withDefaults) collectDefaultMetrics({ register: this.registry });
  }
}
