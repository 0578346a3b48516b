import type { Clock } from '@qim/store-core';
import { UnavailableError, systemClock } from '@qim/store-core';
import { RedisMailboxStore, RedisMessageStore, checkRedisReadiness, connectRedis } from '@qim/store-redis';
import type { RedisTarget, ReplicaAcks } from '@qim/store-redis';
import type { ReadinessCheck } from '../http/readiness';
import type { MailboxBackend, MailboxBinding, MessageBackend, StartupLog } from './backend-types';
import { StoreCache } from './store-cache';

type RedisClient = Awaited<ReturnType<typeof connectRedis>>;

const NO_ACKS: ReplicaAcks = { min: 0, timeoutMs: 1_000 };

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
  const settings = { appendonly: ready.appendonly, appendfsync: ready.appendfsync, maxmemoryPolicy: ready.maxmemoryPolicy, noAppendfsyncOnRewrite: ready.noAppendfsyncOnRewrite };
  step('redis', { ...settings, ...(ready.warning === null ? {} : { warning: ready.warning }) });
  return redis;
}

function readinessOf(redis: RedisClient, env: string, replicaAcks: ReplicaAcks): ReadinessCheck {
  return {
    name: 'store',
    check: async () => {
      const r = await checkRedisReadiness(redis, env, replicaAcks.min);
      const detail = { backend: 'redis', appendonly: r.appendonly, appendfsync: r.appendfsync, maxmemoryPolicy: r.maxmemoryPolicy, noAppendfsyncOnRewrite: r.noAppendfsyncOnRewrite };
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
  const acks = s.replicaAcks ?? NO_ACKS;
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
  const acks = s.replicaAcks ?? NO_ACKS;
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
