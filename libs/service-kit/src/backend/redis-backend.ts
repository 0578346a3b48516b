import type { Clock } from '@qim/store-core';
import { UnavailableError, systemClock } from '@qim/store-core';
import { RedisMailboxStore, RedisMessageStore, checkRedisReadiness, connectRedis } from '@qim/store-redis';
import type { ReadinessCheck } from '../http/readiness';
import type { MailboxBackend, MailboxBinding, MessageBackend, StartupLog } from './backend-types';
import { StoreCache } from './store-cache';

type RedisClient = Awaited<ReturnType<typeof connectRedis>>;

/**
 * Redis start-up, fail closed: connect → readiness (server answers, not loading, AOF on,
 * `maxmemory-policy noeviction` and `no-appendfsync-on-rewrite no` outside development/test,
 * `appendfsync always` in production; a weaker setting elsewhere is logged as a warning). The stores share one connection owned here and closed last.
 */
async function openClient(url: string, env: string, step: StartupLog): Promise<RedisClient> {
  const redis = await connectRedis(url);
  const ready = await checkRedisReadiness(redis, env);
  if (!ready.ready) {
    redis.disconnect();
    throw new UnavailableError(`redis not ready: ${ready.reason}`);
  }
  const settings = { appendonly: ready.appendonly, appendfsync: ready.appendfsync, maxmemoryPolicy: ready.maxmemoryPolicy, noAppendfsyncOnRewrite: ready.noAppendfsyncOnRewrite };
  step('redis', { ...settings, ...(ready.warning === null ? {} : { warning: ready.warning }) });
  return redis;
}

function readinessOf(redis: RedisClient, env: string): ReadinessCheck {
  return {
    name: 'store',
    check: async () => {
      const r = await checkRedisReadiness(redis, env);
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
  readonly url: string;
  readonly namespace: string;
  readonly env: string;
  readonly clock?: Clock;
}

export async function redisMessageBackend(s: RedisBackendSettings, step: StartupLog): Promise<MessageBackend> {
  const redis = await openClient(s.url, s.env, step);
  const store = new RedisMessageStore({ redis, namespace: s.namespace, clock: s.clock ?? systemClock, ownsConnection: false });
  return {
    kind: 'redis',
    store,
    readiness: readinessOf(redis, s.env),
    close: async () => {
      await store.close();
      await quit(redis);
    },
  };
}

export async function redisMailboxBackend(s: RedisBackendSettings, binding: MailboxBinding, step: StartupLog): Promise<MailboxBackend> {
  const redis = await openClient(s.url, s.env, step);
  const cache = new StoreCache(
    async (shard) =>
      new RedisMailboxStore({
        redis,
        namespace: s.namespace,
        clock: s.clock ?? systemClock,
        ownsConnection: false,
        shardEpoch: { shard, epoch: binding.epoch },
        gc: binding.gc,
        applyConcurrency: binding.applyConcurrency,
        ...(binding.clockSkewAllowanceMs === undefined ? {} : { clockSkewAllowanceMs: binding.clockSkewAllowanceMs }),
      }),
  );
  return {
    kind: 'redis',
    storeFor: (shard) => cache.get(shard),
    readiness: readinessOf(redis, s.env),
    close: async () => {
      await cache.closeAll();
      await quit(redis);
    },
  };
}
