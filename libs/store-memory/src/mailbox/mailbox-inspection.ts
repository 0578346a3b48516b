import type { Id128, ShardEpoch } from '@qim/store-core';
import { indexKey, proofClustering, userKey } from './memory-mailbox-backend';
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

  /** Rewrites the stored retention meta with format version 3 (`old-version`) or a truncated ledger blob (`partial`). */
  damageRetentionMeta(tenantId: Id128, userId: Id128, damage: 'old-version' | 'partial', now: bigint): boolean {
    const key = userKey(tenantId, userId);
    const row = this.backend.retention.get(key, now);
    if (row === null) return false;
    this.backend.retention.put(key, damage === 'old-version' ? { ...row, version: 3 } : { ...row, ledger: row.ledger.subarray(0, 3) }, null);
    return true;
  }

  /** The stored trim, or null. */
  readTrim(tenantId: Id128, userId: Id128, now: bigint): bigint | null {
    return this.backend.trims.get(userKey(tenantId, userId), now);
  }

  /** Overwrites the entry bytes at `(tenant, user, seq)` with undecodable bytes (keeps its expiry). */
  corruptEntry(tenantId: Id128, userId: Id128, mailboxSeq: bigint): boolean {
    return this.backend.entries.damage(userKey(tenantId, userId), mailboxSeq, Buffer.from('not an entry'));
  }

  /** Whether the dispatch index remembers `dispatchId` in `shardEpoch` at `now`. */
  dispatchIndexed(shardEpoch: ShardEpoch, dispatchId: Id128, now: bigint): boolean {
    return this.backend.dispatchIndex.get(indexKey(shardEpoch.shard, shardEpoch.epoch, dispatchId), now) !== null;
  }
}
