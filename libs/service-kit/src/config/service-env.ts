import { z } from 'zod';
import { choice, hostList, intField, optionalIntField, optionalString, topicName } from './env-fields';
import { isDevelopmentEnv } from './qim-env';
import type { QimEnv } from './qim-env';
import { redisClusterEnvShape, resolveRedisConnection } from './redis-env';
import { resolveScylla, scyllaEnvShape } from './scylla-env';
import { serviceTokenShape } from './service-tokens';
import type { ScyllaBackendConfig } from './scylla-env';
import type { RedisTarget, ReplicaAcks } from '@qim/store-redis';

export { QIM_ENVS, isDevelopmentEnv } from './qim-env';
export type { QimEnv } from './qim-env';
export const STORE_BACKENDS = ['redis', 'scylla', 'memory'] as const;
export type StoreBackendKind = (typeof STORE_BACKENDS)[number];

/**
 * The variables both services read (01-system.md, "Configuration"). Absent `QIM_ENV` means
 * production: the strictest rules apply unless an operator says otherwise.
 */
export const commonEnvShape = {
  ...scyllaEnvShape,
  QIM_STORE_BACKEND: choice(STORE_BACKENDS, 'redis').describe(
    '`redis` | `scylla` | `memory` (memory only with `QIM_ENV=development|test`); any other value is refused, never a fallback',
  ),
  ...serviceTokenShape,
  QIM_HTTP_HOST: optionalString().describe('listen address (default `0.0.0.0`)'),
  QIM_HTTP_PORT: optionalIntField(0, 65535).describe('listen port (default 8080 writer, 8081 mailbox)'),
  QIM_LOG_LEVEL: choice(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info').describe('pino log level'),
  QIM_LOG_REQUESTS: choice(['true', 'false'], 'false').describe(
    "`true` adds Fastify's two log lines per HTTP request; failures are logged with their request id either way",
  ),
  QIM_BODY_LIMIT_BYTES: intField(1024, 16 * 1024 * 1024, 256 * 1024).describe('request body limit in bytes (1 KiB…16 MiB; 413 beyond)'),
  QIM_REDIS_URL: optionalString()
    .pipe(
      z
        .string()
        .regex(/^(rediss?:\/\/\S+|unix:\/\/\/\S+)$/, 'must be a redis:// or rediss:// URL, or unix:///absolute/path for a Unix socket on this host')
        .optional(),
    )
    .describe(
      'writer: required in redis and scylla modes (leases, membership); mailbox: required in redis mode. `redis://` or `rediss://` (TLS) URL, or `unix:///absolute/path` for a Redis on the same host. The server must run `appendonly yes` outside development/test and `appendfsync always` with `QIM_ENV=production` and, outside development/test, `maxmemory-policy noeviction` and `no-appendfsync-on-rewrite no` (start-up and readiness refuse otherwise, naming the setting): under `everysec` an OS crash can roll back an acknowledged send, an evicting policy can drop the retention meta of a user (entries then skipped without `CURSOR_EXPIRED`), and `yes` suspends the fsync during AOF rewrites (libs/store-redis/README.md, "Durability")',
    ),
  ...redisClusterEnvShape,
  QIM_REDIS_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'must match [A-Za-z0-9_.:-]{1,64}')
    .optional()
    .transform((v) => v ?? 'qim')
    .describe('prefix of every Redis key this service writes (stores, membership, leases)'),
  QIM_KAFKA_BROKERS: hostList().describe('Kafka bootstrap servers, `host:port,…`'),
  QIM_KAFKA_CLIENT_ID: optionalString().describe(
    'Kafka client id (default `qim-writer` / `qim-mailbox`); the mailbox also names its consumer groups with it',
  ),
  QIM_TOPIC_MESSAGES: topicName('qim.messages').describe('the outbox topic'),
  QIM_TOPIC_DISPATCH: topicName('qim.mailbox.dispatch').describe('the dispatch topic (partitions = mailbox shards)'),
  QIM_MESSAGES_PARTITIONS: intField(1, 10_000, 12).describe('partitions of the messages topic (created, or verified at start-up)'),
  QIM_KAFKA_REPLICATION: intField(1, 15, 1).describe('replication factor of the topics the services create (`min.insync.replicas` 2 from 3 on)'),
  QIM_KAFKA_PRODUCE_PACE_MS: intField(0, 100, 5).describe(
    "writer outbox and router dispatch producer: least time (ms, 0…100) between the starts of two produce requests, so a busy stream shares requests; a record after a quiet spell goes at once; counts toward a send's deadline; 0 = off",
  ),
  QIM_MAILBOX_SHARDS: optionalIntField(1, 65_536).describe('mailbox (required): shard count = partitions of the dispatch topic'),
  QIM_MAILBOX_EPOCH: optionalIntField(0, 65_535).describe('mailbox (required): mailbox epoch (0…65 535); a change of the shard count is an epoch change'),
  QIM_SHUTDOWN_GRACE_MS: intField(100, 120_000, 10_000).describe('bound of each step of the shutdown sequence (ms)'),
  QIM_SHUTDOWN_DEADLINE_MS: intField(1_000, 600_000, 25_000).describe(
    "one global bound of the shutdown sequence (ms), below the orchestrator's kill timeout; writer: longer than `QIM_SEND_DEADLINE_MS`",
  ),
  QIM_HTTP_REQUEST_TIMEOUT_MS: intField(1_000, 600_000, 30_000).describe('most time a client may take to send one whole request (Fastify `requestTimeout`, ms)'),
  QIM_READ_BUDGET_BYTES: intField(1024 * 1024, 16 * 1024 * 1024 * 1024, 64 * 1024 * 1024).describe(
    'bytes of pages (mailbox sync, writer history) one process reads at once (1 MiB…16 GiB): each read holds its `max_bytes` (at most this) while the store reads; beyond it a read waits `QIM_READ_BUDGET_WAIT_MS`, then `503 UNAVAILABLE` with `Retry-After`',
  ),
  QIM_READ_BUDGET_WAIT_MS: intField(0, 10_000, 200).describe('most time a page read waits for room in `QIM_READ_BUDGET_BYTES` before `503` with `Retry-After` (ms; 0 = refuse at once)'),
} as const;

type CommonRaw = z.output<z.ZodObject<typeof commonEnvShape>>;

/** The resolved store backend choice with exactly the settings it needs. */
export type BackendConfig =
  | { readonly kind: 'memory' }
  | {
      readonly kind: 'redis';
      /** `QIM_REDIS_URL`, or the cluster of `QIM_REDIS_CLUSTER_NODES`. */
      readonly redisUrl: RedisTarget;
      readonly namespace: string;
      /** `QIM_REDIS_MIN_REPLICA_ACKS` / `QIM_REDIS_REPLICA_WAIT_MS`; absent: no wait for replicas. */
      readonly replicaAcks?: ReplicaAcks;
    }
  | ScyllaBackendConfig;

type Ctx = z.core.$RefinementCtx<unknown>;
const issue = (ctx: Ctx, variable: string, message: string) => ctx.addIssue({ code: 'custom', path: [variable], message });

/**
 * Cross-variable rules shared by both services: memory only in development/test; scylla needs
 * hosts, keyspace, DC and RF; RF < 3 only in development/test. Returns null after reporting issues.
 */
export function resolveBackend(raw: CommonRaw, ctx: Ctx): BackendConfig | null {
  const dev = isDevelopmentEnv(raw.QIM_ENV);
  switch (raw.QIM_STORE_BACKEND) {
    case 'memory':
      if (!dev) {
        issue(ctx, 'QIM_STORE_BACKEND', `memory is allowed only with QIM_ENV=development|test (QIM_ENV=${raw.QIM_ENV})`);
        return null;
      }
      return { kind: 'memory' };
    case 'redis': {
      const redis = resolveRedisConnection(raw, ctx);
      if (redis === undefined) issue(ctx, 'QIM_REDIS_URL', 'required when QIM_STORE_BACKEND=redis (or QIM_REDIS_CLUSTER_NODES)');
      if (redis === undefined || redis === null) return null;
      return { kind: 'redis', redisUrl: redis.target, namespace: raw.QIM_REDIS_NAMESPACE, replicaAcks: redis.replicaAcks };
    }
    case 'scylla':
      return resolveScylla(raw, ctx, 'when QIM_STORE_BACKEND=scylla');
  }
}

/** Settings every service has once its environment is valid. */
export interface CommonConfig {
  readonly env: QimEnv;
  readonly backend: BackendConfig;
  /** Every bearer token the service accepts (at least one; several during a rotation). */
  readonly serviceTokens: readonly string[];
  readonly http: {
    readonly host: string;
    readonly port: number;
    readonly bodyLimit: number;
    /** Most time a client may take to send one whole request (Fastify `requestTimeout`, ms). */
    readonly requestTimeoutMs: number;
  };
  readonly logLevel: string;
  /**
   * Log two lines per HTTP request (Fastify's request logging). Off by default: at device polling
   * rates it costs more CPU than serving the request (profiled); failures are logged regardless.
   */
  readonly logRequests: boolean;
  readonly kafka: {
    readonly brokers: readonly string[];
    readonly clientId: string;
    readonly messagesTopic: string;
    readonly dispatchTopic: string;
    readonly messagesPartitions: number;
    readonly replication: number;
    /**
     * Produce pacing of the writer's outbox and the router's dispatch producer (ms, 0 = off;
     * `GroupCommitOptions.paceMs`): a produce request starts no sooner than this after the previous
     * one, so a steady stream goes in fewer, larger requests; after a quiet spell a record goes at once.
     */
    readonly producePaceMs: number;
  };
  /** Bound of each step of the shutdown sequence (ms), within `shutdownDeadlineMs`. */
  readonly shutdownGraceMs: number;
  /**
   * The one global bound of the shutdown sequence (ms), from the signal to the exit; below the
   * orchestrator's kill timeout (compose `stop_grace_period`).
   */
  readonly shutdownDeadlineMs: number;
  /** Prefix of every Redis key this service writes (stores, membership, leases). */
  readonly redisNamespace: string;
  /** The per-process bound of page bytes read at once (`ReadBudget`): total bytes and the wait for a share (ms). */
  readonly readBudget: { readonly bytes: number; readonly waitMs: number };
}

export function commonConfigOf(raw: CommonRaw, backend: BackendConfig, serviceTokens: readonly string[], defaults: { port: number; clientId: string }): CommonConfig {
  return {
    env: raw.QIM_ENV,
    backend,
    serviceTokens,
    http: {
      host: raw.QIM_HTTP_HOST ?? '0.0.0.0',
      port: raw.QIM_HTTP_PORT ?? defaults.port,
      bodyLimit: raw.QIM_BODY_LIMIT_BYTES,
      requestTimeoutMs: raw.QIM_HTTP_REQUEST_TIMEOUT_MS,
    },
    logLevel: raw.QIM_LOG_LEVEL,
    logRequests: raw.QIM_LOG_REQUESTS === 'true',
    kafka: {
      brokers: raw.QIM_KAFKA_BROKERS,
      clientId: raw.QIM_KAFKA_CLIENT_ID ?? defaults.clientId,
      messagesTopic: raw.QIM_TOPIC_MESSAGES,
      dispatchTopic: raw.QIM_TOPIC_DISPATCH,
      messagesPartitions: raw.QIM_MESSAGES_PARTITIONS,
      replication: raw.QIM_KAFKA_REPLICATION,
      producePaceMs: raw.QIM_KAFKA_PRODUCE_PACE_MS,
    },
    shutdownGraceMs: raw.QIM_SHUTDOWN_GRACE_MS,
    shutdownDeadlineMs: raw.QIM_SHUTDOWN_DEADLINE_MS,
    redisNamespace: raw.QIM_REDIS_NAMESPACE,
    readBudget: { bytes: raw.QIM_READ_BUDGET_BYTES, waitMs: raw.QIM_READ_BUDGET_WAIT_MS },
  };
}
