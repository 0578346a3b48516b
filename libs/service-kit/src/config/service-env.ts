import { z } from 'zod';
import { choice, hostList, intField, optionalIntField, optionalString, topicName } from './env-fields';

export const QIM_ENVS = ['production', 'staging', 'development', 'test'] as const;
export type QimEnv = (typeof QIM_ENVS)[number];
export const STORE_BACKENDS = ['redis', 'scylla', 'memory'] as const;
export type StoreBackendKind = (typeof STORE_BACKENDS)[number];

/** True for the environments that may use the Memory backend and a replication factor below 3. */
export const isDevelopmentEnv = (env: QimEnv): boolean => env === 'development' || env === 'test';

/**
 * The variables both services read (01-system.md, "Configuration"). Absent `QIM_ENV` means
 * production: the strictest rules apply unless an operator says otherwise.
 */
export const commonEnvShape = {
  QIM_ENV: choice(QIM_ENVS, 'production'),
  QIM_STORE_BACKEND: choice(STORE_BACKENDS, 'redis'),
  QIM_SERVICE_TOKEN: z.string().min(16, 'must be set (at least 16 characters): every API call presents it as a bearer token'),
  QIM_HTTP_HOST: optionalString(),
  QIM_HTTP_PORT: optionalIntField(0, 65535),
  QIM_LOG_LEVEL: choice(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  QIM_BODY_LIMIT_BYTES: intField(1024, 16 * 1024 * 1024, 256 * 1024),
  QIM_REDIS_URL: optionalString().pipe(
    z.string().regex(/^rediss?:\/\/\S+$/, 'must be a redis:// or rediss:// URL').optional(),
  ),
  QIM_REDIS_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'must match [A-Za-z0-9_.:-]{1,64}')
    .optional()
    .transform((v) => v ?? 'qim'),
  QIM_SCYLLA_HOSTS: optionalString(),
  QIM_SCYLLA_KEYSPACE: optionalString().pipe(
    z.string().regex(/^[a-z][a-z0-9_]{0,47}$/, 'must match [a-z][a-z0-9_]{0,47}').optional(),
  ),
  QIM_SCYLLA_DC: optionalString(),
  QIM_SCYLLA_RF: optionalIntField(1, 15),
  QIM_KAFKA_BROKERS: hostList(),
  QIM_KAFKA_CLIENT_ID: optionalString(),
  QIM_TOPIC_MESSAGES: topicName('qim.messages'),
  QIM_TOPIC_DISPATCH: topicName('qim.mailbox.dispatch'),
  QIM_MESSAGES_PARTITIONS: intField(1, 10_000, 12),
  QIM_KAFKA_REPLICATION: intField(1, 15, 1),
  QIM_MAILBOX_SHARDS: optionalIntField(1, 65_536),
  QIM_MAILBOX_EPOCH: optionalIntField(0, 65_535),
  QIM_SHUTDOWN_GRACE_MS: intField(100, 120_000, 10_000),
} as const;

type CommonRaw = z.output<z.ZodObject<typeof commonEnvShape>>;

/** The resolved store backend choice with exactly the settings it needs. */
export type BackendConfig =
  | { readonly kind: 'memory' }
  | { readonly kind: 'redis'; readonly redisUrl: string; readonly namespace: string }
  | {
      readonly kind: 'scylla';
      readonly hosts: readonly string[];
      readonly keyspace: string;
      readonly localDataCenter: string;
      readonly replicationFactor: number;
    };

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
    case 'redis':
      if (raw.QIM_REDIS_URL === undefined) {
        issue(ctx, 'QIM_REDIS_URL', 'required when QIM_STORE_BACKEND=redis');
        return null;
      }
      return { kind: 'redis', redisUrl: raw.QIM_REDIS_URL, namespace: raw.QIM_REDIS_NAMESPACE };
    case 'scylla': {
      const missing = (['QIM_SCYLLA_HOSTS', 'QIM_SCYLLA_KEYSPACE', 'QIM_SCYLLA_DC', 'QIM_SCYLLA_RF'] as const).filter(
        (k) => raw[k] === undefined,
      );
      for (const k of missing) issue(ctx, k, 'required when QIM_STORE_BACKEND=scylla');
      const rf = raw.QIM_SCYLLA_RF;
      if (rf !== undefined && rf < 3 && !dev) {
        issue(ctx, 'QIM_SCYLLA_RF', `must be ≥ 3 when QIM_ENV=${raw.QIM_ENV} (got ${rf}; only development|test may use less)`);
        return null;
      }
      const hosts = parseScyllaHosts(raw.QIM_SCYLLA_HOSTS, ctx);
      if (missing.length > 0 || hosts === null) return null;
      return {
        kind: 'scylla',
        hosts,
        keyspace: raw.QIM_SCYLLA_KEYSPACE!,
        localDataCenter: raw.QIM_SCYLLA_DC!,
        replicationFactor: rf!,
      };
    }
  }
}

function parseScyllaHosts(raw: string | undefined, ctx: Ctx): readonly string[] | null {
  if (raw === undefined) return null;
  const parsed = hostList(9042).safeParse(raw);
  if (!parsed.success) {
    issue(ctx, 'QIM_SCYLLA_HOSTS', parsed.error.issues.map((i) => i.message).join(', '));
    return null;
  }
  return parsed.data;
}

/** Settings every service has once its environment is valid. */
export interface CommonConfig {
  readonly env: QimEnv;
  readonly backend: BackendConfig;
  readonly serviceToken: string;
  readonly http: { readonly host: string; readonly port: number; readonly bodyLimit: number };
  readonly logLevel: string;
  readonly kafka: {
    readonly brokers: readonly string[];
    readonly clientId: string;
    readonly messagesTopic: string;
    readonly dispatchTopic: string;
    readonly messagesPartitions: number;
    readonly replication: number;
  };
  readonly shutdownGraceMs: number;
  /** Prefix of every Redis key this service writes (stores, membership, leases). */
  readonly redisNamespace: string;
}

export function commonConfigOf(raw: CommonRaw, backend: BackendConfig, defaults: { port: number; clientId: string }): CommonConfig {
  return {
    env: raw.QIM_ENV,
    backend,
    serviceToken: raw.QIM_SERVICE_TOKEN,
    http: { host: raw.QIM_HTTP_HOST ?? '0.0.0.0', port: raw.QIM_HTTP_PORT ?? defaults.port, bodyLimit: raw.QIM_BODY_LIMIT_BYTES },
    logLevel: raw.QIM_LOG_LEVEL,
    kafka: {
      brokers: raw.QIM_KAFKA_BROKERS,
      clientId: raw.QIM_KAFKA_CLIENT_ID ?? defaults.clientId,
      messagesTopic: raw.QIM_TOPIC_MESSAGES,
      dispatchTopic: raw.QIM_TOPIC_DISPATCH,
      messagesPartitions: raw.QIM_MESSAGES_PARTITIONS,
      replication: raw.QIM_KAFKA_REPLICATION,
    },
    shutdownGraceMs: raw.QIM_SHUTDOWN_GRACE_MS,
    redisNamespace: raw.QIM_REDIS_NAMESPACE,
  };
}
