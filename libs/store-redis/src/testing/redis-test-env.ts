import { randomBytes } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { parseClusterNodes } from '../redis/redis-target';
import type { RedisClusterTarget, RedisTarget } from '../redis/redis-target';

/** Either client the stores accept; the specs' admin clients are one of them. */
export type AnyRedis = Redis | Cluster;

/**
 * Which Redis the shared-server specs run against: `cluster` when the Jest config says so
 * (`jest.redis-cluster.config.js` sets `QIM_TEST_REDIS_TARGET=cluster`), standalone otherwise.
 */
export function onCluster(): boolean {
  return process.env['QIM_TEST_REDIS_TARGET'] === 'cluster';
}

/**
 * The Redis the backend specs run against: `QIM_REDIS_URL` (printed by `tools/infra/infra env`).
 * Missing → the spec FAILS with this message; it is never skipped.
 */
export function requireRedisUrl(): string {
  const url = process.env['QIM_REDIS_URL'];
  if (url === undefined || url.trim() === '') {
    throw new Error('QIM_REDIS_URL is not set: run `tools/infra/infra up redis` and `eval "$(tools/infra/infra env)"` (Redis specs never skip)');
  }
  return url;
}

/**
 * The cluster of the cluster target: `QIM_TEST_REDIS_CLUSTER_NODES` (`tools/infra/infra env` after
 * `infra up redis-cluster`). Missing → the spec FAILS with this message; it is never skipped.
 */
export function requireRedisCluster(): RedisClusterTarget {
  const nodes = process.env['QIM_TEST_REDIS_CLUSTER_NODES'];
  if (nodes === undefined || nodes.trim() === '') {
    throw new Error(
      'QIM_TEST_REDIS_CLUSTER_NODES is not set: run `tools/infra/infra up redis-cluster` and ' +
        '`eval "$(tools/infra/infra env)"` (the cluster target never skips)',
    );
  }
  return parseClusterNodes(nodes);
}

/** What the specs' stores connect to: the cluster on the cluster target, `QIM_REDIS_URL` otherwise. */
export function testTarget(): RedisTarget {
  return onCluster() ? requireRedisCluster() : requireRedisUrl();
}

/**
 * A fresh client for specs: production settings (auto-pipelining), failing fast when the server is
 * gone. An explicit `url` is always that standalone server; otherwise the spec target's client — a
 * `Cluster` on the cluster target, typed as `Redis` because the specs use the command API both
 * share (keys of several slots go through `keysMatching`/`dropNamespace`, which visit every primary).
 */
export function testClient(url?: string): Redis {
  if (url === undefined && onCluster()) {
    const c = requireRedisCluster();
    return new Cluster(c.clusterNodes.slice(), { enableAutoPipelining: true, redisOptions: { maxRetriesPerRequest: 2 } }) as unknown as Redis;
  }
  return new Redis(url ?? requireRedisUrl(), { maxRetriesPerRequest: 2, enableAutoPipelining: true });
}

/** A namespace unique to one harness / suite run: `qimt-<16 hex>`. */
export function testNamespace(): string {
  return `qimt-${randomBytes(8).toString('hex')}`;
}

/** The servers holding keys: the client itself, or every primary of a cluster. */
function keyHolders(redis: AnyRedis): Redis[] {
  return redis instanceof Cluster ? redis.nodes('master') : [redis];
}

/** Every key matching `pattern` (SCAN on every primary of a cluster). */
export async function keysMatching(redis: AnyRedis, pattern: string): Promise<string[]> {
  const out: string[] = [];
  for (const node of keyHolders(redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      out.push(...keys);
    } while (cursor !== '0');
  }
  return out;
}

/** Deletes every key of `namespace` (SCAN + UNLINK, on every primary of a cluster); returns how many were removed. */
export async function dropNamespace(redis: AnyRedis, namespace: string): Promise<number> {
  let removed = 0;
  for (const node of keyHolders(redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${namespace}:*`, 'COUNT', 1000);
      cursor = next;
      // One key per UNLINK: keys of one SCAN page lie in different slots (CROSSSLOT on a cluster).
      if (keys.length > 0) removed += (await Promise.all(keys.map((k) => node.unlink(k)))).reduce((a, b) => a + b, 0);
    } while (cursor !== '0');
  }
  return removed;
}
