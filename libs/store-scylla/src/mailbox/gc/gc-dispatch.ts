import { CorruptEntryError, LANE_COUNT, gcDeadlineAt, gcEligible, id128ToBytes, resolveGcDeadline } from '@qim/store-core';
import type { LaneWatermark } from '@qim/store-core';
import { optU64, reqInt } from '../cql/rows';
import { forEachLimited } from '../mailbox-context';
import type { MailboxContext } from '../mailbox-context';
import { readProgress } from '../dispatch/progress-row';
import type { ProgressRow } from '../dispatch/progress-row';
import { COMPLETED, WATERMARK } from '../tables/lane-tables';
import { PROGRESS } from '../tables/progress-table';
import { rewriteFact } from './fact-rewrite';
import type { FactRewrite } from './fact-rewrite';
import { childFacts, completedFact, progressFact } from './gc-facts';
import type { IndexRow } from './gc-facts';

const ALL_LANES = Array.from({ length: LANE_COUNT }, (_, lane) => lane);

/** 'reclaimed': this pass fixed or resumed the dispatch's GC to its end; 'skipped': not eligible (yet). */
export type GcOutcome = 'reclaimed' | 'skipped';

async function storedWatermarks(ctx: MailboxContext): Promise<LaneWatermark[]> {
  const rows = await ctx.cql.rows(WATERMARK.all, [ctx.shardEpoch.shard, ALL_LANES]);
  return rows.map((r) => ({ lane: reqInt(r, 'lane', 'lane watermark'), w: optU64(r, 'w', 'lane W'), floor: optU64(r, 'w_floor', 'lane floor') }));
}

/** The gate, then ONE marker LWT on progress conditioned on every fact the gate judged. Null: not now. */
async function fixDeadline(ctx: MailboxContext, p: ProgressRow, cutoffMs: bigint): Promise<bigint | null> {
  const view = { ...p, completedChunks: [] };
  if (!gcEligible(view, await storedWatermarks(ctx), cutoffMs)) return null;
  const deadline = gcDeadlineAt(ctx.clock.nowMs(), ctx.gc.dispatchGcDelayMs);
  const key = [ctx.shardEpoch.shard, id128ToBytes(p.receipt.dispatchId)];
  const r = await ctx.cql.lwt(PROGRESS.mark, [deadline, ...key, p.lastSeenAt, p.maxObservedOffset, p.completedAt]);
  if (!r.applied) return null;
  await ctx.gcStepHook?.({ step: 'mark', dispatchId: p.receipt.dispatchId });
  return deadline;
}

/** Mirrors the fixed deadline to the completed index (`IF gc_scheduled_at = null`); a different copy → `CorruptEntryError`. */
async function mirror(ctx: MailboxContext, idx: IndexRow, p: ProgressRow, deadline: bigint): Promise<IndexRow> {
  if (idx.gcDeadline !== null) return idx;
  const key = [ctx.shardEpoch.shard, idx.completedAt, id128ToBytes(idx.dispatchId)];
  const r = await ctx.cql.lwt(COMPLETED.mirror, [deadline, p.maxObservedOffset, ...key]);
  if (!r.applied) {
    const again = await ctx.cql.one(COMPLETED.one, key);
    const copy = again === null ? null : optU64(again, 'gc_scheduled_at', 'completed index');
    if (copy !== deadline) throw new CorruptEntryError(`dispatch ${idx.dispatchId}: completed index deadline ${String(copy)} ≠ ${deadline}`);
  } else {
    await ctx.gcStepHook?.({ step: 'mirror', dispatchId: idx.dispatchId });
  }
  return { ...idx, gcDeadline: deadline, maxObservedOffset: p.maxObservedOffset };
}

/** Phase move `from → to` under the deadline; a lost LWT must find the phase already at or past `to`. */
async function movePhase(ctx: MailboxContext, p: ProgressRow, from: 1 | null, to: 1 | 2, deadline: bigint): Promise<void> {
  const r = await ctx.cql.lwt(PROGRESS.phase, [to, ctx.shardEpoch.shard, id128ToBytes(p.receipt.dispatchId), from, deadline]);
  if (!r.applied) {
    const again = await readProgress(ctx, p.receipt.dispatchId);
    if (again === null || again.gcDeadline !== deadline || again.gcPhase === null || again.gcPhase < to) {
      throw new CorruptEntryError(`dispatch ${p.receipt.dispatchId}: GC phase ${String(from)} → ${to} refused`);
    }
    return;
  }
  await ctx.gcStepHook?.({ step: to === 1 ? 'phase1' : 'phase2', dispatchId: p.receipt.dispatchId });
}

async function rewriteAll(ctx: MailboxContext, deadline: bigint, facts: readonly FactRewrite[]): Promise<void> {
  await forEachLimited(facts, ctx.gcConcurrency, async (f) => {
    await rewriteFact(ctx, deadline, f);
  });
}

/**
 * One dispatch through the seed's GC, resumable at every step:
 * 1. marker: the gate (complete, last seen ≤ cutoff, every lane's W and floor ≥ max observed), then ONE
 *    progress LWT fixing the deadline (`IF gc_scheduled_at = null AND last_seen_at = ? AND
 *    max_observed_offset = ? AND completed_at = ?`); not applied → leave everything alone;
 * 2. mirror the same value to the completed index; 3. phase null → 1;
 * 4. phase 1: every lane source of every observed offset and every chunk fact, then every observation,
 *    each locked by LWT and rewritten whole with the remaining TTL (already expired rows tolerated);
 * 5. phase 1 → 2; 6. progress, then the completed index, rewritten the same way.
 * A resumed pass takes the deadline from progress (or, once progress expired, from the index mirror);
 * two different copies, or an index marker without a progress marker → `CorruptEntryError`.
 */
export async function gcDispatch(ctx: MailboxContext, idx: IndexRow, cutoffMs: bigint): Promise<GcOutcome> {
  const p = await readProgress(ctx, idx.dispatchId);
  if (p === null) {
    if (idx.gcDeadline === null) throw new CorruptEntryError(`dispatch ${idx.dispatchId}: completed index without progress and without a GC marker`);
    await rewriteFact(ctx, idx.gcDeadline, completedFact(ctx, idx, idx.gcDeadline));
    return 'reclaimed';
  }
  if (p.completedAt !== idx.completedAt) throw new CorruptEntryError(`dispatch ${idx.dispatchId}: completed index and progress disagree on completed_at`);
  if (p.gcDeadline === null && idx.gcDeadline !== null) throw new CorruptEntryError(`dispatch ${idx.dispatchId}: index marker without progress marker`);
  const deadline = resolveGcDeadline(p.gcDeadline, idx.gcDeadline) ?? (await fixDeadline(ctx, p, cutoffMs));
  if (deadline === null) return 'skipped';
  const index = await mirror(ctx, idx, p, deadline);
  if (p.gcPhase === null) await movePhase(ctx, p, null, 1, deadline);
  if (p.gcPhase !== 2) {
    const { sourcesAndChunks, observations } = await childFacts(ctx, p, deadline);
    await rewriteAll(ctx, deadline, sourcesAndChunks);
    await rewriteAll(ctx, deadline, observations);
    await movePhase(ctx, p, 1, 2, deadline);
  }
  await rewriteFact(ctx, deadline, progressFact(ctx, p, deadline));
  await rewriteFact(ctx, deadline, completedFact(ctx, index, deadline));
  return 'reclaimed';
}
