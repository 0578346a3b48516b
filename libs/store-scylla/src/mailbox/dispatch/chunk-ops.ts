import { CorruptEntryError, InvalidInputError, assertSeqInEpoch, declaredChunk, id128ToBytes } from '@qim/store-core';
import type { AppendReport, DispatchProgress, DispatchReceipt, Id128, MailboxEntryInput, ManifestChunk } from '@qim/store-core';
import type { MailboxContext } from '../mailbox-context';
import { prepareEntries, writeEntries } from '../retention/append-entries';
import { CHUNK } from '../tables/dispatch-fact-tables';
import { completeIfDone, completedChunks } from './completion';
import { assertNoGcMarker, progressForReceipt, readProgress } from './progress-row';
import type { ProgressRow } from './progress-row';

function declared(p: ProgressRow, lane: number, chunkId: number): ManifestChunk {
  const chunk = declaredChunk(p.manifest, lane, chunkId);
  if (chunk === null) throw new InvalidInputError(`chunk ${lane}/${chunkId} is not declared by the manifest of dispatch ${p.receipt.dispatchId}`);
  return chunk;
}

/**
 * `appendChunk`: the receipt must be the stored one (`NotFound`/`GcNotSafe`/`Conflict`), the chunk
 * declared, and `entries` exactly its users (any order), each of the manifest's tenant at the
 * receipt's seq (`InvalidInputError` otherwise, nothing written). Each user's group is then written
 * like `appendBatch` (bucket proof → meta LWT → entry). No completion fact is written here.
 */
export async function appendChunk(ctx: MailboxContext, receipt: DispatchReceipt, lane: number, chunkId: number, entries: readonly MailboxEntryInput[]): Promise<AppendReport> {
  assertSeqInEpoch(receipt.mailboxSeq, ctx.shardEpoch.epoch);
  const p = await progressForReceipt(ctx, receipt);
  const chunk = declared(p, lane, chunkId);
  const users = entries.map((e) => e.userId).sort();
  if (users.length !== chunk.users.length || users.some((u, i) => u !== chunk.users[i])) {
    throw new InvalidInputError(`entries of chunk ${lane}/${chunkId} must be exactly its ${chunk.users.length} users`);
  }
  for (const e of entries) {
    if (e.tenantId !== p.manifest.tenantId || e.mailboxSeq !== receipt.mailboxSeq) {
      throw new InvalidInputError(`chunk entry of ${e.userId} is not at the receipt's tenant and seq`);
    }
  }
  return writeEntries(ctx, prepareEntries(ctx, entries));
}

/** `markChunkCompleted`: the durable completion fact of a declared chunk (`IF NOT EXISTS`), then progress completion. */
export async function markChunkCompleted(ctx: MailboxContext, receipt: DispatchReceipt, lane: number, chunkId: number): Promise<void> {
  const p = await progressForReceipt(ctx, receipt);
  declared(p, lane, chunkId);
  await ctx.cql.lwt(CHUNK.insert, [ctx.shardEpoch.shard, id128ToBytes(receipt.dispatchId), lane, chunkId, ctx.clock.nowMs()]);
  await completeIfDone(ctx, p);
}

/** `chunkCompleted`: reads the completion fact (unknown dispatch → false; GC marker → `GcNotSafe`). */
export async function chunkCompleted(ctx: MailboxContext, dispatchId: Id128, lane: number, chunkId: number): Promise<boolean> {
  const p = await readProgress(ctx, dispatchId);
  if (p === null) return false;
  assertNoGcMarker(p);
  if (declaredChunk(p.manifest, lane, chunkId) === null) return false;
  return (await ctx.cql.one(CHUNK.one, [ctx.shardEpoch.shard, id128ToBytes(dispatchId), lane, chunkId])) !== null;
}

/**
 * `dispatchProgress`: manifest + merged lane completion; unknown → null; marker → `GcNotSafe`; damage →
 * `CorruptEntry` (undecodable row, a completion of an undeclared chunk, or `completedAt` set while a
 * declared chunk has lost its completion fact).
 */
export async function dispatchProgress(ctx: MailboxContext, dispatchId: Id128): Promise<DispatchProgress | null> {
  const p = await readProgress(ctx, dispatchId);
  if (p === null) return null;
  assertNoGcMarker(p);
  const completed = await completedChunks(ctx, p);
  if (p.completedAt !== null && !p.manifest.lanes.every((l) => completed[l.lane]!.length === l.chunks.length)) {
    throw new CorruptEntryError(`dispatch ${dispatchId} is complete but lost chunk completion facts`);
  }
  return {
    receipt: p.receipt,
    manifest: p.manifest,
    maxObservedOffset: p.maxObservedOffset,
    lastSeenAt: p.lastSeenAt,
    completedAt: p.completedAt,
    completedChunks: completed,
    gcDeadline: p.gcDeadline,
    gcPhase: p.gcPhase,
  };
}
