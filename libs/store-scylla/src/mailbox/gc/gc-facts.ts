import type { types } from 'cassandra-driver';
import { CorruptEntryError, LANE_COUNT, id128FromBytes, id128ToBytes } from '@qim/store-core';
import type { Id128 } from '@qim/store-core';
import { optU64, reqBlob, reqInt, reqU64, ttlOf } from '../cql/rows';
import type { MailboxContext } from '../mailbox-context';
import { CHUNK, OBSERVATION, SOURCE } from '../tables/dispatch-fact-tables';
import { COMPLETED } from '../tables/lane-tables';
import { PROGRESS } from '../tables/progress-table';
import type { ProgressRow } from '../dispatch/progress-row';
import { childLockLost } from './fact-rewrite';
import type { FactRewrite } from './fact-rewrite';

const ALL_LANES = Array.from({ length: LANE_COUNT }, (_, lane) => lane);

/** One row of the completed index as the GC reads it. */
export interface IndexRow {
  readonly completedAt: bigint;
  readonly dispatchId: Id128;
  readonly maxObservedOffset: bigint;
  readonly gcDeadline: bigint | null;
  readonly ttl: number | null;
}

/** Decodes a completed-index row; a null `max_observed_offset` (a skeleton) → `CorruptEntryError`. */
export function parseIndexRow(row: types.Row): IndexRow {
  return {
    completedAt: reqU64(row, 'completed_at', 'completed index'),
    dispatchId: id128FromBytes(reqBlob(row, 'dispatch_id', 'completed index')),
    maxObservedOffset: reqU64(row, 'max_observed_offset', 'completed index'),
    gcDeadline: optU64(row, 'gc_scheduled_at', 'completed index'),
    ttl: ttlOf(row),
  };
}

/** Every source row of the dispatch at each observed offset (all 64 lanes), then chunks, then observations. */
export async function childFacts(ctx: MailboxContext, p: ProgressRow, deadline: bigint): Promise<{ sourcesAndChunks: FactRewrite[]; observations: FactRewrite[] }> {
  const { shard } = ctx.shardEpoch;
  const d = p.receipt.dispatchId;
  const id = id128ToBytes(d);
  const obsRows = await ctx.cql.rows(OBSERVATION.list, [shard, id]);
  const sourcesAndChunks: FactRewrite[] = [];
  for (const o of obsRows) {
    const offset = reqU64(o, 'observed_offset', 'observation');
    for (const s of await ctx.cql.rows(SOURCE.atOffset, [shard, ALL_LANES, offset])) {
      if (s['dispatch_id'] === null || id128FromBytes(reqBlob(s, 'dispatch_id', 'lane source')) !== d) continue;
      const lane = reqInt(s, 'lane', 'lane source');
      const key = [shard, lane, offset];
      sourcesAndChunks.push({
        kind: 'source',
        dispatchId: d,
        ttl: ttlOf(s),
        lock: { statement: SOURCE.lock, params: [deadline, ...key, id] },
        lockRecordsDeadline: true,
        lockLost: childLockLost('source', 'dispatch_id', deadline),
        writetime: { statement: SOURCE.writetime, params: key },
        rewrite: { statement: SOURCE.rewrite, values: [...key, id, reqInt(s, 'chunk_count', 'lane source'), reqU64(s, 'recorded_at', 'lane source'), deadline] },
      });
    }
  }
  const lanes = p.manifest.lanes.filter((l) => l.chunks.length > 0).map((l) => l.lane);
  const chunkRows = lanes.length === 0 ? [] : await ctx.cql.rows(CHUNK.lanes, [shard, id, lanes]);
  for (const c of chunkRows) {
    const key = [shard, id, reqInt(c, 'lane', 'chunk'), reqInt(c, 'chunk_id', 'chunk')];
    const completedAt = reqU64(c, 'completed_at', 'chunk');
    sourcesAndChunks.push({
      kind: 'chunk',
      dispatchId: d,
      ttl: ttlOf(c),
      lock: { statement: CHUNK.lock, params: [deadline, ...key, completedAt] },
      lockRecordsDeadline: true,
      lockLost: childLockLost('chunk', 'completed_at', deadline),
      writetime: { statement: CHUNK.writetime, params: key },
      rewrite: { statement: CHUNK.rewrite, values: [...key, completedAt, deadline] },
    });
  }
  const observations: FactRewrite[] = obsRows.map((o) => {
    const key = [shard, id, reqU64(o, 'observed_offset', 'observation')];
    const recordedAt = reqU64(o, 'recorded_at', 'observation');
    return {
      kind: 'observation',
      dispatchId: d,
      ttl: ttlOf(o),
      lock: { statement: OBSERVATION.lock, params: [deadline, ...key, recordedAt] },
      lockRecordsDeadline: true,
      lockLost: childLockLost('observation', 'recorded_at', deadline),
      writetime: { statement: OBSERVATION.writetime, params: key },
      rewrite: { statement: OBSERVATION.rewrite, values: [...key, recordedAt, deadline] },
    };
  });
  return { sourcesAndChunks, observations };
}

/** The progress row's final rewrite; its lock re-asserts phase 2 under the fixed deadline. */
export function progressFact(ctx: MailboxContext, p: ProgressRow, deadline: bigint): FactRewrite {
  const key = [ctx.shardEpoch.shard, id128ToBytes(p.receipt.dispatchId)];
  const r = p.receipt;
  return {
    kind: 'progress',
    dispatchId: r.dispatchId,
    ttl: p.ttl,
    lock: { statement: PROGRESS.phase, params: [2, ...key, 2, deadline] },
    lockRecordsDeadline: false,
    lockLost: (current) => {
      if (current === null || current['gc_scheduled_at'] === null || current['gc_scheduled_at'] === undefined) return 'gone';
      throw new CorruptEntryError(`dispatch ${r.dispatchId}: progress is not in GC phase 2 of deadline ${deadline}`);
    },
    writetime: { statement: PROGRESS.writetime, params: key },
    rewrite: {
      statement: PROGRESS.rewrite,
      values: [...key, Buffer.from(r.digest), r.canonicalOffset, r.mailboxSeq, p.manifestBlob, p.maxObservedOffset, p.lastSeenAt, p.completedAt, deadline, 2],
    },
  };
}

/** The completed-index row's final rewrite; its lock re-asserts the mirrored deadline. */
export function completedFact(ctx: MailboxContext, idx: IndexRow, deadline: bigint): FactRewrite {
  const key = [ctx.shardEpoch.shard, idx.completedAt, id128ToBytes(idx.dispatchId)];
  return {
    kind: 'completed',
    dispatchId: idx.dispatchId,
    ttl: idx.ttl,
    lock: { statement: COMPLETED.lock, params: [deadline, ...key, deadline] },
    lockRecordsDeadline: false,
    lockLost: (current) => {
      if (current === null || current['gc_scheduled_at'] === null || current['gc_scheduled_at'] === undefined) return 'gone';
      throw new CorruptEntryError(`dispatch ${idx.dispatchId}: completed index holds another deadline than ${deadline}`);
    },
    writetime: { statement: COMPLETED.writetime, params: key },
    rewrite: { statement: COMPLETED.rewrite, values: [...key, idx.maxObservedOffset, deadline] },
  };
}
