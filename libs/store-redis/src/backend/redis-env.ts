import type { BackendEnvContext } from '@qim/store-core';
import { intField, optionalString } from '@qim/store-core';
import { parseClusterNodes } from '../redis/redis-target';
import type { RedisTarget } from '../redis/redis-target';
import type { ReplicaAcks } from '../redis/replica-acks';

/** The Redis Cluster form and the replica acks (ADR-0038), beside `QIM_REDIS_URL` in the Redis backend's variables. */
export const redisClusterEnvShape = {
  QIM_REDIS_CLUSTER_NODES: optionalString().describe(
    'a Redis Cluster instead of one server (mutually exclusive with `QIM_REDIS_URL`): ' +
      'seed nodes `host:port,host:port,…` (some or all primaries and replicas; the rest is discovered), ' +
      'optionally preceded by `redis://` or `rediss://` (TLS) and `user:password@`, which apply to every node, ' +
      'e.g. `rediss://qim:secret@10.0.0.1:6379,10.0.0.2:6379`. Every primary must pass ' +
      'the same settings as a standalone server, and `cluster_state` must be `ok`',
  ),
  QIM_REDIS_MIN_REPLICA_ACKS: intField(0, 5, 0).describe(
    'replicas of each written Redis primary that must hold a send (record and seq), ' +
      'a mailbox page (entries and frontier, before its Kafka offset is committed; ' +
      'on a cluster the entries also before the frontier is written), a trim raise (truncate), ' +
      'a membership change and a writer lease before they count (`WAIT`, ADR-0038); 0 = no wait. ' +
      'Required ≥ 1 with `QIM_ENV=production` on a cluster; readiness fails while a primary has fewer replicas online',
  ),
  QIM_REDIS_REPLICA_WAIT_MS: intField(10, 4_000, 1_000).describe(
    'longest `WAIT` for `QIM_REDIS_MIN_REPLICA_ACKS` (ms, below the 5 s command timeout); beyond it the send answers `503 UNAVAILABLE` ' +
      '(retry with the same `client_message_id`: answered identically) and the mailbox page is retried',
  ),
} as const;

/** Where the services' Redis is and how its writes wait for replicas. */
export interface RedisConnection {
  readonly target: RedisTarget;
  readonly replicaAcks: ReplicaAcks;
}

/**
 * `QIM_REDIS_URL` or `QIM_REDIS_CLUSTER_NODES` (never both) with the replica acks; undefined when
 * neither is set, null after reporting an issue.
 */
export function resolveRedisConnection(raw: Readonly<Record<string, unknown>>, ctx: BackendEnvContext): RedisConnection | null | undefined {
  const url = raw['QIM_REDIS_URL'] as string | undefined;
  const nodes = raw['QIM_REDIS_CLUSTER_NODES'] as string | undefined;
  const replicaAcks = { min: raw['QIM_REDIS_MIN_REPLICA_ACKS'] as number, timeoutMs: raw['QIM_REDIS_REPLICA_WAIT_MS'] as number };
  if (nodes === undefined) return url === undefined ? undefined : { target: url, replicaAcks };
  if (url !== undefined) {
    ctx.issue('QIM_REDIS_CLUSTER_NODES', 'set either QIM_REDIS_URL (one server) or QIM_REDIS_CLUSTER_NODES (a cluster), not both');
    return null;
  }
  let target: RedisTarget;
  try {
    target = parseClusterNodes(nodes);
  } catch (e) {
    ctx.issue('QIM_REDIS_CLUSTER_NODES', e instanceof Error ? e.message : String(e));
    return null;
  }
  if (ctx.env === 'production' && replicaAcks.min < 1) {
    ctx.issue(
      'QIM_REDIS_MIN_REPLICA_ACKS',
      'must be ≥ 1 with QIM_ENV=production on a Redis Cluster: replication is asynchronous, ' +
        'so without WAIT a send acknowledged only by a primary that then fails is lost when its replica is promoted (ADR-0038)',
    );
    return null;
  }
  return { target, replicaAcks };
}
