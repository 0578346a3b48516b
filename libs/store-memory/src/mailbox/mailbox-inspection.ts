import { LANE_COUNT } from '@qim/store-core';
import type { Id128 } from '@qim/store-core';
import { chunkKey, dispatchKey, laneKey, proofClustering, userKey } from './memory-mailbox-backend';
import type { MemoryMailboxBackend } from './memory-mailbox-backend';

/**
 * Fault injection and direct observation of a `MemoryMailboxBackend` for harnesses. These reach
 * below the store interface only to damage or observe stored facts the way a real fault or an
 * operator query would.
 */
export class MemoryMailboxInspector {
  constructor(private readonly backend: MemoryMailboxBackend) {}

  /** Removes the bucket proof of `(tenant, user, epoch, day)`. */
  removeBucketProof(tenantId: Id128, userId: Id128, epoch: number, day: number): boolean {
    return this.backend.proofs.remove(userKey(tenantId, userId), proofClustering(day, epoch));
  }

  /** The stored trim, or null. */
  readTrim(tenantId: Id128, userId: Id128, now: bigint): bigint | null {
    return this.backend.trims.get(userKey(tenantId, userId), now);
  }

  /** Overwrites the entry bytes at `(tenant, user, seq)` with undecodable bytes (keeps its expiry). */
  corruptEntry(tenantId: Id128, userId: Id128, mailboxSeq: bigint): boolean {
    return this.backend.entries.damage(userKey(tenantId, userId), mailboxSeq, Buffer.from('not an entry'));
  }

  /** Removes the completion fact of a chunk (a lost row). */
  removeChunkCompletion(shard: number, dispatchId: Id128, lane: number, chunkId: number): boolean {
    return this.backend.chunks.remove(chunkKey(shard, dispatchId, lane), BigInt(chunkId));
  }

  /** Live bookkeeping rows of one dispatch: progress, observations, lane sources, chunk facts, completed index. */
  countDispatchFacts(shard: number, dispatchId: Id128, now: bigint): number {
    const b = this.backend;
    let n = b.progress.get(dispatchKey(shard, dispatchId), now) === null ? 0 : 1;
    n += b.observations.scan(dispatchKey(shard, dispatchId), now).length;
    for (let lane = 0; lane < LANE_COUNT; lane++) {
      n += b.sources.scan(laneKey(shard, lane), now).filter(([, src]) => src.dispatchId === dispatchId).length;
      n += b.chunks.scan(chunkKey(shard, dispatchId, lane), now).length;
    }
    n += b.completed.scan(String(shard), now).filter(([, row]) => row.dispatchId === dispatchId).length;
    return n;
  }
}
