import { randomBytes } from 'node:crypto';
import { LANE_COUNT, buildManifest, manifestDigest } from '@qim/store-core';
import type { DispatchManifest, DispatchReceipt, Id128, MailboxStore } from '@qim/store-core';

/** A fresh random id. */
export function rid(): Id128 {
  return randomBytes(16).toString('hex') as Id128;
}

/** A random shard for one case (cases share a keyspace, never a shard). */
export function randomShard(): number {
  return Math.floor(Math.random() * 65_536);
}

/** A dispatch of `n` random recipients of `tenantId` (chunk size 2). */
export function makeDispatch(tenantId: Id128, n: number): { manifest: DispatchManifest; digest: Buffer } {
  const manifest = buildManifest({ dispatchId: rid(), tenantId, recipients: Array.from({ length: n }, rid), chunkSize: 2 });
  return { manifest, digest: manifestDigest(manifest) };
}

/** Writes and completes every declared chunk of the dispatch (one event per user). */
export async function completeAllChunks(store: MailboxStore, receipt: DispatchReceipt, manifest: DispatchManifest, createdAt: bigint): Promise<void> {
  for (const lane of manifest.lanes) {
    for (const chunk of lane.chunks) {
      const entries = chunk.users.map((userId) => ({
        tenantId: manifest.tenantId,
        userId,
        mailboxSeq: receipt.mailboxSeq,
        createdAt,
        events: [{ ordinal: 0, eventId: rid(), payload: Buffer.from(`to ${userId}`) }],
      }));
      await store.appendChunk(receipt, lane.lane, chunk.chunkId, entries);
      await store.markChunkCompleted(receipt, lane.lane, chunk.chunkId);
    }
  }
}

/** Moves W of every lane through `offsets` (ascending, starting from `from`) and then every floor to the last one. */
export async function advanceEverything(store: MailboxStore, from: bigint | null, offsets: readonly bigint[]): Promise<void> {
  for (let lane = 0; lane < LANE_COUNT; lane++) {
    let prev = from;
    for (const o of offsets) {
      await store.advanceWatermark(lane, prev, o);
      prev = o;
    }
    await store.advanceFloor(lane, null, offsets[offsets.length - 1]!);
  }
}
