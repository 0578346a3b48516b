import type { BackendModule, BackendReadiness, Clock, Coordination, MailboxBackend, MailboxBinding, MessageBackend, StartupLog } from '@qim/store-core';
import { StoreCache, UnavailableError, optionalString, systemClock } from '@qim/store-core';
import { z } from 'zod';
import { RedisMailboxStore } from '../mailbox/redis-mailbox-store';
import { RedisMessageStore } from '../message/redis-message-store';
import { connectRedis } from '../redis/connect-redis';
import { checkRedisReadiness } from '../readiness/redis-readiness';
import type { RedisTarget } from '../redis/redis-target';
import type { ReplicaAcks } from '../redis/replica-acks';
import { NO_REPLICA_ACKS } from '../redis/replica-acks';
import { RedisWriterCoordination } from '../writer-coordination/redis-writer-coordination';
import { redisClusterEnvShape, resolveRedisConnection } from './redis-env';

type ReadinessCheck = BackendReadiness;

type RedisClient = Awaited<ReturnType<typeof connectRedis>>;

/**
 * Redis start-up, fail closed: connect → readiness (server answers, not loading, AOF on,
 * `maxmemory-policy noeviction` and `no-appendfsync-on-rewrite no` outside development/test,
 * `appendfsync always` in production; a weaker setting elsewhere is logged as a warning; on a cluster every primary, `cluster_state:ok`, and
 * as many replicas online as the replica acks). The stores share one connection (or cluster client) owned here and closed last.
 */
async function openClient(url: RedisTarget, env: string, step: StartupLog, replicaAcks: ReplicaAcks): Promise<RedisClient> {
  const redis = await connectRedis(url);
  const ready = await checkRedisReadiness(redis, env, replicaAcks.min);
  if (!ready.ready) {
    redis.disconnect();
    throw new UnavailableError(`redis not ready: ${ready.reason}`);
  }
  const settings = {
    appendonly: ready.appendonly,
    appendfsync: ready.appendfsync,
    maxmemoryPolicy: ready.maxmemoryPolicy,
    noAppendfsyncOnRewrite: ready.noAppendfsyncOnRewrite,
  };
  step('redis', { ...settings, ...(ready.warning === null ? {} : { warning: ready.warning }) });
  return redis;
}

function readinessOf(redis: RedisClient, env: string, replicaAcks: ReplicaAcks): ReadinessCheck {
  return {
    name: 'store',
    check: async () => {
      const r = await checkRedisReadiness(redis, env, replicaAcks.min);
      const detail = {
        backend: 'redis',
        appendonly: r.appendonly,
        appendfsync: r.appendfsync,
        maxmemoryPolicy: r.maxmemoryPolicy,
        noAppendfsyncOnRewrite: r.noAppendfsyncOnRewrite,
      };
      return { ok: r.ready, detail: { ...detail, reason: r.reason, warning: r.warning } };
    },
  };
}

async function quit(redis: RedisClient): Promise<void> {
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}

export interface RedisBackendSettings {
  /** A URL or a cluster (`QIM_REDIS_URL` / `QIM_REDIS_CLUSTER_NODES`). */
  readonly url: RedisTarget;
  /** `QIM_REDIS_MIN_REPLICA_ACKS` / `QIM_REDIS_REPLICA_WAIT_MS` (none when absent). */
  readonly replicaAcks?: ReplicaAcks;
  readonly namespace: string;
  readonly env: string;
  readonly clock?: Clock;
}

export async function redisMessageBackend(s: RedisBackendSettings, step: StartupLog): Promise<MessageBackend> {
  const acks = s.replicaAcks ?? NO_REPLICA_ACKS;
  const redis = await openClient(s.url, s.env, step, acks);
  const store = new RedisMessageStore({ redis, namespace: s.namespace, clock: s.clock ?? systemClock, ownsConnection: false, replicaAcks: acks });
  return {
    kind: 'redis',
    store,
    readiness: readinessOf(redis, s.env, acks),
    close: async () => {
      await store.close();
      await quit(redis);
    },
  };
}

export async function redisMailboxBackend(s: RedisBackendSettings, binding: MailboxBinding, step: StartupLog): Promise<MailboxBackend> {
  const acks = s.replicaAcks ?? NO_REPLICA_ACKS;
  const redis = await openClient(s.url, s.env, step, acks);
  const cache = new StoreCache(
    async (shard) =>
      new RedisMailboxStore({
        redis,
        namespace: s.namespace,
        clock: s.clock ?? systemClock,
        ownsConnection: false,
        replicaAcks: acks,
        shardEpoch: { shard, epoch: binding.epoch },
        gc: binding.gc,
        applyConcurrency: binding.applyConcurrency,
        ...(binding.clockSkewAllowanceMs === undefined ? {} : { clockSkewAllowanceMs: binding.clockSkewAllowanceMs }),
      }),
  );
  return {
    kind: 'redis',
    storeFor: (shard) => cache.get(shard),
    readiness: readinessOf(redis, s.env, acks),
    close: async () => {
      await cache.closeAll();
      await quit(redis);
    },
  };
}

/** The Redis variables: the server and the key prefix (the writer's coordination reads them in scylla mode too). */
export const redisEnvShape = {
  QIM_REDIS_URL: optionalString()
    .pipe(
      z
        .string()
        .regex(/^(rediss?:\/\/\S+|unix:\/\/\/\S+)$/, 'must be a redis:// or rediss:// URL, or unix:///absolute/path for a Unix socket on this host')
        .optional(),
    )
    .describe(
      'writer: required in redis and scylla modes (leases, membership); mailbox: required in redis mode. ' +
        '`redis://` or `rediss://` (TLS) URL, or `unix:///absolute/path` for a Redis on the same host. ' +
        'The server must run `appendonly yes` outside development/test and `appendfsync always` with `QIM_ENV=production` and, ' +
        'outside development/test, `maxmemory-policy noeviction` and `no-appendfsync-on-rewrite no` ' +
        '(start-up and readiness refuse otherwise, naming the setting): ' +
        'under `everysec` an OS crash can roll back an acknowledged send, an evicting policy can drop the retention meta of a user ' +
        '(entries then skipped without `CURSOR_EXPIRED`), and `yes` suspends the fsync during AOF rewrites (libs/store-redis/README.md, "Durability")',
    ),
  QIM_REDIS_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'must match [A-Za-z0-9_.:-]{1,64}')
    .optional()
    .transform((v) => v ?? 'qim')
    .describe('prefix of every Redis key this service writes (stores, membership, leases)'),
  ...redisClusterEnvShape,
} as const;

/** The Redis backend's settings, from `QIM_REDIS_*`. */
export interface RedisBackendConfig {
  readonly kind: 'redis';
  /** `QIM_REDIS_URL`, or the cluster of `QIM_REDIS_CLUSTER_NODES`. */
  readonly redisUrl: RedisTarget;
  readonly namespace: string;
  /** `QIM_REDIS_MIN_REPLICA_ACKS` / `QIM_REDIS_REPLICA_WAIT_MS`; absent: no wait for replicas. */
  readonly replicaAcks?: ReplicaAcks;
}

/**
 * The writer's coordination in Redis (`@qim/store-redis` owns the connection and the scripts). Every
 * Redis failure surfaces as `UnavailableError` (503). `owner` identifies this process in recovery claims.
 */
export async function redisCoordination(cfg: RedisBackendConfig, owner: string, step: StartupLog): Promise<Coordination> {
  const redis = await RedisWriterCoordination.open(cfg.redisUrl, {
    namespace: cfg.namespace,
    owner,
    ...(cfg.replicaAcks === undefined ? {} : { replicaAcks: cfg.replicaAcks }),
  });
  step('coordination', { kind: 'redis' });
  return {
    membership: redis.membership,
    leases: redis.leases,
    claims: redis.claims,
    readiness: { name: 'coordination', check: async () => ({ ok: await redis.ping(), detail: 'redis ping' }) },
    close: () => redis.close(),
  };
}

/** The Redis backend: both stores and the writer's coordination over one server. */
export const redisBackendModule: BackendModule<RedisBackendConfig> = {
  kind: 'redis',
  capabilities: { durable: true, coordination: true },
  envShape: redisEnvShape,
  resolve: (raw, ctx, requiredBy) => {
    const redis = resolveRedisConnection(raw, ctx);
    if (redis === undefined) ctx.issue('QIM_REDIS_URL', `required ${requiredBy} (or QIM_REDIS_CLUSTER_NODES)`);
    if (redis === undefined || redis === null) return null;
    return { kind: 'redis', redisUrl: redis.target, namespace: raw['QIM_REDIS_NAMESPACE'] as string, replicaAcks: redis.replicaAcks };
  },
  openMessageBackend: (cfg, { env, step, clock }) =>
    redisMessageBackend(
      { url: cfg.redisUrl, namespace: cfg.namespace, env, ...(cfg.replicaAcks ? { replicaAcks: cfg.replicaAcks } : {}), ...(clock ? { clock } : {}) },
      step,
    ),
  openMailboxBackend: (cfg, binding, { env, step, clock }) =>
    redisMailboxBackend(
      { url: cfg.redisUrl, namespace: cfg.namespace, env, ...(cfg.replicaAcks ? { replicaAcks: cfg.replicaAcks } : {}), ...(clock ? { clock } : {}) },
      binding,
      step,
    ),
  openCoordination: redisCoordination,
};
