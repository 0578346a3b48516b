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

/** `dispatch_progress`. */
export interface ProgressRow {
  readonly digest: Buffer;
  readonly canonicalOffset: bigint;
  readonly mailboxSeq: bigint;
  /** `encodeDispatchManifest` bytes. */
  readonly manifest: Buffer;
  readonly maxObservedOffset: bigint;
  readonly lastSeenAt: bigint;
  readonly completedAt: bigint | null;
  /** The GC marker: the one fixed deadline (ms). */
  readonly gcDeadline: bigint | null;
  readonly gcPhase: 1 | 2 | null;
}

/** `dispatch_observation`: one row per observed offset of a dispatch. */
export interface ObservationRow {
  readonly recordedAt: bigint;
}

/** `lane_dispatch`: the dispatch recorded at a source offset of a lane. */
export interface SourceRow {
  readonly dispatchId: Id128;
}

/** `dispatch_chunk`: the completion fact of a chunk. */
export interface ChunkRow {
  readonly completedAt: bigint;
}

/** `lane_watermark`. */
export interface WatermarkRow {
  readonly w: bigint | null;
  readonly floor: bigint | null;
}

/** `completed_dispatch`: the time-ordered GC candidate index, with the mirrored GC deadline. */
export interface CompletedRow {
  readonly dispatchId: Id128;
  readonly completedAt: bigint;
  readonly maxObservedOffset: bigint;
  readonly gcDeadline: bigint | null;
}

export const userKey = (tenantId: Id128, userId: Id128): string => `${tenantId}:${userId}`;
/** Clustering key of a bucket proof inside the user's partition: day first, so one day's epochs are adjacent. */
export const proofClustering = (day: number, epoch: number): string => `${String(day).padStart(10, '0')}:${String(epoch).padStart(5, '0')}`;
export const dispatchKey = (shard: number, dispatchId: Id128): string => `${shard}:${dispatchId}`;
export const laneKey = (shard: number, lane: number): string => `${shard}:${lane}`;
export const chunkKey = (shard: number, dispatchId: Id128, lane: number): string => `${shard}:${dispatchId}:${lane}`;

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
  /** `mailbox_retention_bucket_v2`: partition `userKey`, clustering `proofClustering(day, epoch)` (one row per epoch and day). */
  readonly proofs = new MemoryTable<string, BucketProof>(this.counter);
  /** `mailbox_meta` trim, key `userKey`. */
  readonly trims = new MemoryKvTable<bigint>(this.counter);
  /** `dispatch_progress`, key `dispatchKey`. */
  readonly progress = new MemoryKvTable<ProgressRow>(this.counter);
  /** `dispatch_observation`: partition `dispatchKey`, clustering observed offset. */
  readonly observations = new MemoryTable<bigint, ObservationRow>(this.counter);
  /** `lane_dispatch`: partition `laneKey`, clustering source offset. */
  readonly sources = new MemoryTable<bigint, SourceRow>(this.counter);
  /** `dispatch_chunk`: partition `chunkKey`, clustering chunk id. */
  readonly chunks = new MemoryTable<bigint, ChunkRow>(this.counter);
  /** `lane_watermark`, key `laneKey`. */
  readonly watermarks = new MemoryKvTable<WatermarkRow>(this.counter);
  /** `completed_dispatch`: partition shard, clustering padded completed_at + dispatch id. */
  readonly completed = new MemoryTable<string, CompletedRow>(this.counter);

  /** Storage reads so far. */
  get reads(): number {
    return this.counter.reads;
  }
}
