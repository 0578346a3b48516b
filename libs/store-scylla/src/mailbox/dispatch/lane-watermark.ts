import { InvalidInputError, WatermarkConflictError, decideAdvance, decideFloor, id128FromBytes, id128ToBytes, recomputeWatermark, verifyWatermark } from '@qim/store-core';
import type { Id128, LaneSource, LaneWatermark } from '@qim/store-core';
import type { types } from 'cassandra-driver';
import { optU64, reqBlob, reqInt, reqU64 } from '../cql/rows';
import { RETRY, casLoop } from '../mailbox-context';
import type { MailboxContext } from '../mailbox-context';
import { CHUNK, SOURCE } from '../tables/dispatch-fact-tables';
import { WATERMARK } from '../tables/lane-tables';
import { assertNoGcMarker, readProgress } from './progress-row';

/** Sources read per page while recomputing a lane's W. */
const SOURCE_PAGE = 256;

function checkLane(lane: number): void {
  if (!Number.isInteger(lane) || lane < 0 || lane > 63) throw new InvalidInputError(`lane out of range: ${lane}`);
}

/** The stored `{w, floor}` of a lane (`{null, null}` when never moved). */
export async function readWatermark(ctx: MailboxContext, lane: number): Promise<LaneWatermark> {
  const row = await ctx.cql.one(WATERMARK.select, [ctx.shardEpoch.shard, lane]);
  return { lane, w: row === null ? null : optU64(row, 'w', 'lane W'), floor: row === null ? null : optU64(row, 'w_floor', 'lane floor') };
}

/** A lane source row: its offset, owning dispatch and the number of chunks the manifest declares in this lane. */
interface SourceRow {
  readonly offset: bigint;
  readonly dispatchId: Id128;
  readonly chunkCount: number;
}

function parseSource(row: types.Row): SourceRow {
  return {
    offset: reqU64(row, 'observed_offset', 'lane source'),
    dispatchId: id128FromBytes(reqBlob(row, 'dispatch_id', 'lane source')),
    chunkCount: reqInt(row, 'chunk_count', 'lane source'),
  };
}

/** Whether every chunk of `lane` of the source's dispatch has its completion fact (no chunks → complete). */
async function sourceComplete(ctx: MailboxContext, lane: number, s: SourceRow): Promise<boolean> {
  if (s.chunkCount === 0) return true;
  const rows = await ctx.cql.rows(CHUNK.lane, [ctx.shardEpoch.shard, id128ToBytes(s.dispatchId), lane]);
  return rows.length >= s.chunkCount;
}

/** The lane's lowest recorded source above `after` (null = none). */
async function lowestAbove(ctx: MailboxContext, lane: number, after: bigint | null): Promise<bigint | null> {
  const row = await ctx.cql.one(SOURCE.above, [ctx.shardEpoch.shard, lane, after ?? -1n, 1]);
  return row === null ? null : parseSource(row).offset;
}

/**
 * `laneWatermark`: reads `{W, floor}`, then recomputes W from the completion facts of the sources in
 * `(floor, W]` (CQL reads only `observed_offset > floor`, never below it), walking contiguous complete
 * offsets and stopping at the first hole or incomplete source; `verifyWatermark` requires
 * recomputed = W and neither below the floor (`WatermarkNotReadyError`). Sources above W are the
 * lane's pending work, not part of the proof.
 */
export async function laneWatermark(ctx: MailboxContext, lane: number): Promise<LaneWatermark> {
  checkLane(lane);
  const stored = await readWatermark(ctx, lane);
  const walked: LaneSource[] = [];
  const complete = new Map<Id128, boolean>();
  let cursor = stored.floor;
  let expected: bigint | null = stored.floor === null ? null : stored.floor + 1n;
  for (let more = stored.w !== null; more; ) {
    const rows = await ctx.cql.rows(SOURCE.between, [ctx.shardEpoch.shard, lane, cursor ?? -1n, stored.w, SOURCE_PAGE]);
    const page = rows.map(parseSource);
    more = page.length === SOURCE_PAGE;
    for (const s of page) {
      let done = complete.get(s.dispatchId);
      if (done === undefined) complete.set(s.dispatchId, (done = await sourceComplete(ctx, lane, s)));
      walked.push({ offset: s.offset, complete: done });
      if ((expected !== null && s.offset !== expected) || !done) {
        more = false;
        break;
      }
      expected = s.offset + 1n;
    }
    cursor = page[page.length - 1]?.offset ?? cursor;
  }
  return verifyWatermark(stored, recomputeWatermark(stored.floor, walked));
}

/**
 * `advanceWatermark`: a GC marker on the dispatch recorded at `offset` → `GcNotSafe` (checked first);
 * then `decideAdvance` over the stored W, the lane's lowest recorded source above the floor, the source
 * at `offset` and its lane completion; an advance is `UPDATE … SET w = ? IF w = ?` from exactly the
 * stored value. A lost CAS re-reads: W now ≥ offset → idempotent, else `WatermarkConflict`.
 */
export async function advanceWatermark(ctx: MailboxContext, lane: number, expectedPrev: bigint | null, offset: bigint): Promise<LaneWatermark> {
  checkLane(lane);
  const stored = await readWatermark(ctx, lane);
  const row = await ctx.cql.one(SOURCE.atOffset, [ctx.shardEpoch.shard, [lane], offset]);
  const source = row === null ? null : parseSource(row);
  if (source !== null) {
    const p = await readProgress(ctx, source.dispatchId);
    if (p !== null) assertNoGcMarker(p);
  }
  const lowest = stored.w === null ? await lowestAbove(ctx, lane, stored.floor) : null;
  const complete = source !== null && (await sourceComplete(ctx, lane, source));
  const decision = decideAdvance({ current: stored.w, expectedPrev, offset, lowestRecorded: lowest, recorded: source !== null, complete });
  if (decision === 'noop') return stored;
  const r = await ctx.cql.lwt(WATERMARK.advance, [offset, ctx.shardEpoch.shard, lane, stored.w]);
  if (r.applied) return { lane, w: offset, floor: stored.floor };
  const now = await readWatermark(ctx, lane);
  if (now.w !== null && now.w >= offset) return now;
  throw new WatermarkConflictError(`lane ${lane}: W moved to ${String(now.w)} meanwhile`);
}

/** `advanceFloor`: `decideFloor` on the stored values, then `UPDATE … SET w_floor = ? IF w_floor = ? AND w >= ?`. */
export async function advanceFloor(ctx: MailboxContext, lane: number, expectedFloor: bigint | null, newFloor: bigint): Promise<LaneWatermark> {
  checkLane(lane);
  return casLoop('lane floor', async () => {
    const stored = await readWatermark(ctx, lane);
    if (decideFloor(stored, expectedFloor, newFloor) === 'noop') return stored;
    const r = await ctx.cql.lwt(WATERMARK.floor, [newFloor, ctx.shardEpoch.shard, lane, stored.floor, newFloor]);
    return r.applied ? { lane, w: stored.w, floor: newFloor } : RETRY;
  });
}
