import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The Prometheus metrics of one service process, in a registry of its own (no global state, so
 * tests can build many apps in one process).
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
  /** Time from a message's created_at to its dispatch being proven complete in a shard. */
  readonly dispatchLagSeconds = new Histogram({
    name: 'qim_dispatch_lag_seconds',
    help: 'created_at → dispatch complete, per shard',
    labelNames: ['shard'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });
  /** Router: dispatch records produced. */
  readonly routedDispatches = new Counter({
    name: 'qim_router_dispatches_total',
    help: 'Dispatch records produced by the router',
    registers: [this.registry],
  });
  /** Proven lane watermark (source offset) per shard and lane; -1 = nothing proven. */
  readonly laneWatermark = new Gauge({
    name: 'qim_lane_watermark',
    help: 'Proven lane watermark W (source offset), -1 when none',
    labelNames: ['shard', 'lane'] as const,
    registers: [this.registry],
  });
  /** Lane stalls observed (a hole or incomplete chunks blocked advance). */
  readonly laneStalls = new Counter({
    name: 'qim_lane_stalls_total',
    help: 'Watermark advances refused as stalled',
    labelNames: ['shard', 'lane'] as const,
    registers: [this.registry],
  });
  /** Kafka offset committed per consumer partition (next offset to read). */
  readonly committedOffset = new Gauge({
    name: 'qim_kafka_committed_offset',
    help: 'Committed Kafka offset (next to read) per role and partition',
    labelNames: ['role', 'partition'] as const,
    registers: [this.registry],
  });

  constructor(readonly service: string, withDefaults = true) {
    this.registry.setDefaultLabels({ service });
    if (withDefaults) collectDefaultMetrics({ register: this.registry });
  }
}
