import { InvalidInputError, UnavailableError } from '@qim/store-core';
import type { Cluster, Redis } from 'ioredis';
import { keySlot } from '../keys/key-slot';
import type { RedisKeys } from '../keys/redis-keys';

/**
 * How an acknowledged write waits for replicas (ADR-0038): after the durable steps of a send (and of
 * a mailbox page, before its Kafka offset is committed) the store sends a fence `SET` and
 * `WAIT min timeoutMs` to every primary it wrote to (`ReplicaFence`). Redis replicates
 * asynchronously; a write only the old primary had is gone once a replica is promoted. `min` 0 = no wait (a primary without
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

const nodeId = (n: Redis): string => `${n.options.host}:${n.options.port}`;

/**
 * The primaries whose writes a step waits for: the standalone client itself, or on a cluster the
 * primaries owning the slots of `keys` (every primary for 'all'; a slot the client's map does not
 * place yet → every primary).
 */
export function writtenPrimaries(redis: Redis | Cluster, keys: readonly string[] | 'all'): Redis[] {
  if (!isCluster(redis)) return [redis];
  const masters = redis.nodes('master');
  if (keys === 'all') return masters;
  const byKey = new Map<string, Redis>(masters.map((n) => [nodeId(n), n]));
  const out = new Set<Redis>();
  for (const key of keys) {
    const node = byKey.get((redis.slots[keySlot(key)]?.[0] ?? '') as string);
    if (node === undefined) return masters;
    out.add(node);
  }
  return [...out];
}

/**
 * `nodes` without the primary of `key` (undefined: all of them). That primary replicates its own
 * writes in the order it ran them, so a later write there needs no WAIT for its earlier ones.
 */
function exceptPrimaryOf(redis: Redis | Cluster, nodes: Redis[], key: string | undefined): Redis[] {
  if (key === undefined) return nodes;
  const [anchor] = writtenPrimaries(redis, [key]);
  return nodes.filter((n) => n !== anchor);
}

/** Lifetime of a fence value: it only has to reach the replicas, nobody reads it. */
export const FENCE_TTL_MS = 10_000;
/** Fence numbers tried before a primary is taken to own no slot of the map. */
const FENCE_SEARCH_LIMIT = 1_000_000;

/**
 * The fence keys of one store (ADR-0038): `WAIT` waits for the replication offset of the calling
 * client's last write, so a retried step whose idempotent script writes nothing (the first attempt,
 * on another connection, wrote and then timed out in its WAIT) would pass WAIT at once. A `SET` of a
 * fence key on the same connection right before the WAIT is that connection's last write, and Redis
 * runs it after everything the primary has run before (the first attempt's writes included, which
 * the retry has observed): the WAIT then covers them all. On a cluster each primary gets a fence key
 * in one of its slots, `fence:<n>` with the first `n` whose slot it owns in the client's slot map,
 * remembered and checked against the map on every use (found again when the map has moved).
 */
export class ReplicaFence {
  /** Node (`host:port`) → fence number whose slot it owned when last checked. */
  private readonly numbers = new Map<string, number>();

  constructor(private readonly keys: RedisKeys) {}

  /** The fence key for `node`, null when the client's slot map gives that primary no slot (nothing of a step lives there). */
  keyFor(redis: Redis | Cluster, node: Redis): string | null {
    if (!isCluster(redis)) return this.keys.replicaFence(0);
    const id = nodeId(node);
    const owner = (n: number): string => (redis.slots[keySlot(this.keys.replicaFence(n))]?.[0] ?? '') as string;
    const known = this.numbers.get(id);
    if (known !== undefined && owner(known) === id) return this.keys.replicaFence(known);
    this.numbers.delete(id);
    if (!redis.slots.some((s) => s?.[0] === id)) return null;
    for (let n = 0; n < FENCE_SEARCH_LIMIT; n++) {
      const o = owner(n);
      if (o !== '' && !this.numbers.has(o)) this.numbers.set(o, n);
      if (o === id) return this.keys.replicaFence(n);
    }
    return null;
  }
}

/** `SET fence … PX` then `WAIT`, one pipelined round trip on `node`; the WAIT's count. */
async function fencedWait(redis: Redis | Cluster, node: Redis, fence: ReplicaFence, acks: ReplicaAcks): Promise<number> {
  const key = fence.keyFor(redis, node);
  if (key === null) return acks.min;
  const replies = await node.pipeline().set(key, '1', 'PX', FENCE_TTL_MS).wait(acks.min, acks.timeoutMs).exec();
  const [set, wait] = replies ?? [];
  const failed = set?.[0] ?? wait?.[0] ?? (set === undefined || wait === undefined ? new Error('no reply to the fenced WAIT') : null);
  if (failed !== null) {
    // The node no longer serves the fence's slot: let the client learn the new map (the fence is found again).
    if (isCluster(redis) && /^(MOVED|ASK)\b/.test(failed.message)) redis.refreshSlotsCache();
    throw failed;
  }
  return Number(wait![1]);
}

/**
 * A fenced `WAIT acks.min acks.timeoutMs` (`ReplicaFence`) on every primary of `writtenPrimaries`
 * (but the primary of `except`, when given), in parallel. Fewer replicas than `min` within the bound → `UnavailableError` (503): the writes
 * stay on the primary and every step is idempotent, so the caller retries the same step (the same
 * send) and is answered identically once a replica has them.
 */
export async function awaitReplicas(
  redis: Redis | Cluster,
  acks: ReplicaAcks,
  keys: readonly string[] | 'all',
  what: string,
  fence: ReplicaFence,
  except?: string,
): Promise<void> {
  if (acks.min === 0) return;
  const nodes = exceptPrimaryOf(redis, writtenPrimaries(redis, keys), except);
  if (nodes.length === 0) return;
  let counts: number[];
  try {
    counts = await Promise.all(nodes.map((n) => fencedWait(redis, n, fence, acks)));
  } catch (e) {
    throw new UnavailableError(`${what}: WAIT for ${acks.min} replica(s) failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  const least = Math.min(...counts);
  if (least < acks.min) {
    throw new UnavailableError(
      `${what}: the write reached ${least} of the ${acks.min} replica(s) required within ${acks.timeoutMs} ms ` +
        `(it stays on the primary; retry the step as it is)`,
    );
  }
}
