import { InvalidInputError } from '@qim/store-core';
import type { Clock } from '@qim/store-core';
import type { Cluster, Redis } from 'ioredis';
import type { ReplicaAcks } from './replica-acks';

/** Default physical clean-up grace beyond a logical expiry (Redis-native expiry, server clock). */
export const DEFAULT_PHYSICAL_GRACE_MS = 3_600_000n;

/** What both Redis stores are built from. */
export interface RedisStoreOptions {
  /**
   * An ioredis client: standalone (`connectRedis`) or a `Cluster` (every script touches one hash
   * tag, so one slot). The store registers its scripts on it.
   */
  readonly redis: Redis | Cluster;
  /** Key namespace (`[A-Za-z0-9_.:-]{1,64}`): every key is `<namespace>:{<tag>}:…`. */
  readonly namespace: string;
  /**
   * The time source of every logical expiry (aux commit facts, Ephemeral history, mailbox entries,
   * GC deadlines): scripts receive `now` from it and compare against stored absolute expiries.
   */
  readonly clock: Clock;
  /**
   * How long after a logical expiry Redis-native expiry may physically drop the key (ms, ≥ 1 s;
   * default 1 h). Must exceed the worst clock skew between the callers and the Redis server.
   */
  readonly physicalGraceMs?: bigint;
  /**
   * How acknowledged writes wait for replicas (ADR-0038; default none): a send's record and seq
   * before it is published, a mailbox page (entries and frontier) before it is reported applied, a
   * trim raise (`truncateBefore`) before it is answered.
   */
  readonly replicaAcks?: ReplicaAcks;
  /** When true, `close()` quits the client (default true). */
  readonly ownsConnection?: boolean;
}

export function resolveGrace(o: RedisStoreOptions): bigint {
  const grace = o.physicalGraceMs ?? DEFAULT_PHYSICAL_GRACE_MS;
  if (grace < 1000n) throw new InvalidInputError('physicalGraceMs must be at least 1000');
  return grace;
}

/** Quits the client when the store owns it (`QUIT`, falling back to a hard disconnect). */
export async function releaseConnection(o: RedisStoreOptions): Promise<void> {
  if (o.ownsConnection === false) return;
  try {
    await o.redis.quit();
  } catch {
    o.redis.disconnect();
  }
}
