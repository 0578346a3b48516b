import { InvalidInputError, UnavailableError } from '@qim/store-core';
import type { Cluster, Redis } from 'ioredis';
import { keySlot } from '../keys/key-slot';

/**
 * How an acknowledged write waits for replicas (ADR-0038): after the durable steps of a send (and of
 * a mailbox page, before its Kafka offset is committed) the store sends `WAIT min timeoutMs` on the
 * connection that wrote, to every primary it wrote to. Redis replicates asynchronously; a write only
 * the old primary had is gone once a replica is promoted. `min` 0 = no wait (a primary without
 * replicas, development).
 */
export interface ReplicaAcks {
  /** Replicas of each written primary that must hold the writes (0…5). */
  readonly min: number;
  /** Longest wait (ms, 1…`commandTimeoutMs` − 1) before the step fails with `UnavailableError`. */
  readonly timeoutMs: number;
}

export const NO_REPLICA_ACKS: ReplicaAcks = Object.freeze({ min: 0, timeoutMs: 1 });

export function checkReplicaAcks(r: ReplicaAcks): ReplicaAcks {
  if (!Number.isInteger(r.min) || r.min < 0 || r.min > 5) throw new InvalidInputError(`replica acks must be an integer 0…5: ${r.min}`);
  if (!Number.isInteger(r.timeoutMs) || r.timeoutMs < 1) throw new InvalidInputError(`replica ack timeout must be an integer ≥ 1 ms: ${r.timeoutMs}`);
  return Object.freeze({ ...r });
}

function isCluster(redis: Redis | Cluster): redis is Cluster {
  return (redis as { isCluster?: boolean }).isCluster === true;
}

/**
 * The connections to send WAIT on: the standalone client itself, or on a cluster the primaries
 * owning the slots of `keys` (every primary for 'all'; a slot the client's map does not place yet
 * → every primary). WAIT must go on the very connection that wrote: Redis waits for the offset of
 * that client's last propagated write, so a WAIT on another connection proves nothing.
 */
export function writtenPrimaries(redis: Redis | Cluster, keys: readonly string[] | 'all'): Redis[] {
  if (!isCluster(redis)) return [redis];
  const masters = redis.nodes('master');
  if (keys === 'all') return masters;
  const byKey = new Map<string, Redis>(masters.map((n) => [`${n.options.host}:${n.options.port}`, n]));
  const out = new Set<Redis>();
  for (const key of keys) {
    const node = byKey.get((redis.slots[keySlot(key)]?.[0] ?? '') as string);
    if (node === undefined) return masters;
    out.add(node);
  }
  return [...out];
}

/**
 * `WAIT acks.min acks.timeoutMs` on every connection of `writtenPrimaries`, in parallel. Fewer
 * replicas than `min` within the bound → `UnavailableError` (503): the writes stay on the primary
 * and every step is idempotent, so the caller retries the same step (the same send) and is answered
 * identically once a replica has them.
 */
export async function awaitReplicas(redis: Redis | Cluster, acks: ReplicaAcks, keys: readonly string[] | 'all', what: string): Promise<void> {
  if (acks.min === 0) return;
  const nodes = writtenPrimaries(redis, keys);
  let counts: number[];
  try {
    counts = await Promise.all(nodes.map((n) => n.wait(acks.min, acks.timeoutMs)));
  } catch (e) {
    throw new UnavailableError(`${what}: WAIT for ${acks.min} replica(s) failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  const least = Math.min(...counts);
  if (least < acks.min) {
    throw new UnavailableError(
      `${what}: the write reached ${least} of the ${acks.min} replica(s) required within ${acks.timeoutMs} ms (it stays on the primary; retry the step as it is)`,
    );
  }
}
