import { CorruptEntryError, LANE_COUNT, declaredChunk, id128ToBytes } from '@qim/store-core';
import { reqInt } from '../cql/rows';
import type { MailboxContext } from '../mailbox-context';
import { CHUNK } from '../tables/dispatch-fact-tables';
import { COMPLETED } from '../tables/lane-tables';
import { PROGRESS } from '../tables/progress-table';
import { assertNoGcMarker, readProgress } from './progress-row';
import type { ProgressRow } from './progress-row';

/** Lanes of a manifest that declare at least one chunk. */
export function lanesWithChunks(p: ProgressRow): number[] {
  return p.manifest.lanes.filter((l) => l.chunks.length > 0).map((l) => l.lane);
}

/**
 * Completed chunk ids per lane (index = lane, ascending), read in one query over the lanes that
 * declare chunks. A completion row for a chunk the manifest does not declare → `CorruptEntryError`.
 */
export async function completedChunks(ctx: MailboxContext, p: ProgressRow): Promise<number[][]> {
  const out: number[][] = Array.from({ length: LANE_COUNT }, () => []);
  const lanes = lanesWithChunks(p);
  if (lanes.length === 0) return out;
  const rows = await ctx.cql.rows(CHUNK.lanes, [ctx.shardEpoch.shard, id128ToBytes(p.receipt.dispatchId), lanes]);
  for (const row of rows) {
    const lane = reqInt(row, 'lane', 'chunk completion');
    const chunkId = reqInt(row, 'chunk_id', 'chunk completion');
    if (declaredChunk(p.manifest, lane, chunkId) === null) throw new CorruptEntryError(`completion of undeclared chunk ${lane}/${chunkId}`);
    out[lane]!.push(chunkId);
  }
  for (const ids of out) ids.sort((a, b) => a - b);
  return out;
}

/**
 * Sets `completed_at` once every declared chunk has its completion fact (`IF completed_at = null AND
 * gc_scheduled_at = null`), then makes sure the GC candidate index row exists (`IF NOT EXISTS`).
 * Idempotent: a retry after a crash between the two writes repairs the index.
 */
export async function completeIfDone(ctx: MailboxContext, p: ProgressRow): Promise<void> {
  const { shard } = ctx.shardEpoch;
  const id = id128ToBytes(p.receipt.dispatchId);
  let progress = p;
  if (progress.completedAt === null) {
    const done = await completedChunks(ctx, progress);
    if (!progress.manifest.lanes.every((l) => done[l.lane]!.length === l.chunks.length)) return;
    const r = await ctx.cql.lwt(PROGRESS.complete, [ctx.clock.nowMs(), shard, id]);
    const again = await readProgress(ctx, p.receipt.dispatchId);
    if (again === null || again.completedAt === null) throw new CorruptEntryError(`dispatch ${p.receipt.dispatchId}: completion did not stick (applied ${r.applied})`);
    progress = assertNoGcMarker(again);
  }
  const completedAt = progress.completedAt!;
  if ((await ctx.cql.one(COMPLETED.one, [shard, completedAt, id])) === null) {
    await ctx.cql.lwt(COMPLETED.insert, [shard, completedAt, id, progress.maxObservedOffset]);
  }
}
