import type { BucketProof, Id128 } from '@qim/store-core';
import { MemoryKvTable, MemoryTable, ReadCounter } from '../storage/memory-tables';

/** `mailbox_retention_meta` (V4) as stored: the ledger is the encoded "QRL\x01" blob, the gap uses `NO_GAP`. */
export interface StoredRetentionMeta {
  readonly version: number;
  readonly generation: bigint;
  readonly inspectedThrough: number | null;
  /** `gapToStored(gap)`. */
  readonly gap: bigint;
  /** `encodeActiveLedger` bytes. */
  readonly ledger: Buffer;
}

/** `dispatch_index`: the first sight (lowest offset) of a dispatch id in a shard and epoch, and that record's digest. */
export interface IndexRow {
  readonly offset: bigint;
  /** `dispatchDigest` of the record at `offset` (32 bytes). */
  readonly digest: Buffer;
}

export const userKey = (tenantId: Id128, userId: Id128): string => `${tenantId}:${userId}`;
/** Clustering key of a bucket proof inside the user's partition: day first, so one day's epochs are adjacent. */
export const proofClustering = (day: number, epoch: number): string => `${String(day).padStart(10, '0')}:${String(epoch).padStart(5, '0')}`;
export const frontierKey = (shard: number, epoch: number): string => `${shard}:${epoch}`;
export const indexKey = (shard: number, epoch: number, dispatchId: Id128): string => `${shard}:${epoch}:${dispatchId}`;

/**
 * The storage of Memory mailbox stores: the same facts as the Scylla mailbox tables, entries and
 * blobs as encoded bytes. Several `MemoryMailboxStore`s (different `ShardEpoch`s) may share one.
 */
export class MemoryMailboxBackend {
  readonly counter = new ReadCounter();
  /** `mailbox_entry`: partition `userKey`, clustering mailbox seq, `encodeMailboxEntry` bytes, absolute expiry. */
  readonly entries = new MemoryTable<bigint, Buffer>(this.counter);
  /** `mailbox_retention_meta`, key `userKey`. */
  readonly retention = new MemoryKvTable<StoredRetentionMeta>(this.counter);
  /**
   * `mailbox_retention_bucket_v3`: partition `userKey`, clustering `proofClustering(day, epoch)` (one row per epoch and day).
   * No expiry while a ledger item refers to it; released (expiry `releasedProofTtlMs` later) once its day is consumed (ADR-0022 §6).
   */
  readonly proofs = new MemoryTable<string, BucketProof>(this.counter);
  /** `mailbox_meta` trim, key `userKey`. */
  readonly trims = new MemoryKvTable<bigint>(this.counter);
  /** `shard_frontier`, key `frontierKey`: the highest offset up to which every record is applied (no expiry). */
  readonly frontiers = new MemoryKvTable<bigint>(this.counter);
  /** `dispatch_index`, key `indexKey`, expiring at `createdAt + dispatchDedupeMs` of the winning record. */
  readonly dispatchIndex = new MemoryKvTable<IndexRow>(this.counter);

  /** Rows held per table, expired ones not yet swept included: the soak's storage census. */
  census(): Record<string, number> {
    return {
      mailbox_entry: this.entries.physicalRows(),
      retention_meta: this.retention.physicalRows(),
      bucket_proof: this.proofs.physicalRows(),
      trim: this.trims.physicalRows(),
      shard_frontier: this.frontiers.physicalRows(),
      dispatch_index: this.dispatchIndex.physicalRows(),
    };
  }

  /** Store clock time of the last complete sweep (null: none yet); shared by every store of this backend. */
  lastSweepAt: bigint | null = null;

  /**
   * Physically drops up to `maxRows` expired rows of the tables whose rows expire (entries, dispatch
   * index, released bucket proofs), like a server's TTL compaction; reads already ignore them.
   * `more`: expired rows are left for the next sweep.
   */
  sweep(now: bigint, maxRows: number): { dropped: number; more: boolean } {
    let dropped = 0;
    for (const table of [this.entries, this.dispatchIndex, this.proofs]) {
      const r = table.sweep(now, maxRows - dropped);
      dropped += r.dropped;
      if (r.more) return { dropped, more: true };
    }
    return { dropped, more: false };
  }

  /** Storage reads so far. */
  get reads(): number {
    return this.counter.reads;
  }
}
