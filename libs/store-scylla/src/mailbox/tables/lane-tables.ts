import { defineTable } from '../../schema/table-spec';
import { LWT, READ, WRITE, named } from '../cql/named-statement';

/**
 * `completed_dispatch ((shard), completed_at, dispatch_id)`: the time-ordered GC candidate index,
 * written `IF NOT EXISTS` once progress is complete. The GC mirrors its fixed deadline here
 * (`gc_scheduled_at`, with the `max_observed_offset` it judged) right after fixing it on progress,
 * so a recovery that finds progress already expired still knows the one deadline.
 */
export const COMPLETED_TABLE = defineTable({
  name: 'completed_dispatch',
  create: `CREATE TABLE IF NOT EXISTS {ks}.completed_dispatch (
  shard int, completed_at bigint, dispatch_id blob, max_observed_offset bigint, gc_scheduled_at bigint,
  PRIMARY KEY ((shard), completed_at, dispatch_id)
) WITH CLUSTERING ORDER BY (completed_at ASC, dispatch_id ASC)`,
  columns: { shard: 'int', completed_at: 'bigint', dispatch_id: 'blob', max_observed_offset: 'bigint', gc_scheduled_at: 'bigint' },
  addable: ['gc_scheduled_at'],
});

export const COMPLETED = Object.freeze({
  insert: named(
    'completed.insert',
    'INSERT INTO {ks}.completed_dispatch (shard, completed_at, dispatch_id, max_observed_offset) VALUES (?, ?, ?, ?) IF NOT EXISTS',
    LWT,
  ),
  one: named(
    'completed.one',
    'SELECT max_observed_offset, gc_scheduled_at, TTL(max_observed_offset) AS ttl FROM {ks}.completed_dispatch WHERE shard = ? AND completed_at = ? AND dispatch_id = ?',
    READ,
  ),
  candidates: named(
    'completed.candidates',
    'SELECT completed_at, dispatch_id, max_observed_offset, gc_scheduled_at, TTL(max_observed_offset) AS ttl FROM {ks}.completed_dispatch WHERE shard = ?',
    READ,
  ),
  /** Mirror of the progress deadline (first time). */
  mirror: named(
    'completed.gc_mirror',
    'UPDATE {ks}.completed_dispatch SET gc_scheduled_at = ?, max_observed_offset = ? WHERE shard = ? AND completed_at = ? AND dispatch_id = ? IF gc_scheduled_at = null',
    LWT,
  ),
  /** Lock before the final whole-row rewrite: re-asserts the mirrored deadline. */
  lock: named(
    'completed.gc_lock',
    'UPDATE {ks}.completed_dispatch SET gc_scheduled_at = ? WHERE shard = ? AND completed_at = ? AND dispatch_id = ? IF gc_scheduled_at = ?',
    LWT,
  ),
  writetime: named(
    'completed.writetime',
    'SELECT WRITETIME(max_observed_offset) AS a, WRITETIME(gc_scheduled_at) AS b FROM {ks}.completed_dispatch WHERE shard = ? AND completed_at = ? AND dispatch_id = ?',
    READ,
  ),
  rewrite: named(
    'completed.gc_rewrite',
    'INSERT INTO {ks}.completed_dispatch (shard, completed_at, dispatch_id, max_observed_offset, gc_scheduled_at) VALUES (?, ?, ?, ?, ?) USING TTL ? AND TIMESTAMP ?',
    WRITE,
  ),
});

/** `lane_watermark ((shard, lane))`: the lane's proven W and its reclaim floor (source offsets). */
export const WATERMARK_TABLE = defineTable({
  name: 'lane_watermark',
  create: `CREATE TABLE IF NOT EXISTS {ks}.lane_watermark (
  shard int, lane int, w bigint, w_floor bigint,
  PRIMARY KEY ((shard, lane))
)`,
  columns: { shard: 'int', lane: 'int', w: 'bigint', w_floor: 'bigint' },
  addable: [],
});

export const WATERMARK = Object.freeze({
  select: named('watermark.select', 'SELECT w, w_floor FROM {ks}.lane_watermark WHERE shard = ? AND lane = ?', READ),
  all: named('watermark.all', 'SELECT lane, w, w_floor FROM {ks}.lane_watermark WHERE shard = ? AND lane IN ?', READ),
  /** W from exactly the expected previous value (null binds as "no W yet"). */
  advance: named('watermark.advance', 'UPDATE {ks}.lane_watermark SET w = ? WHERE shard = ? AND lane = ? IF w = ?', LWT),
  /** Floor CAS; the new floor may not pass W. */
  floor: named('watermark.floor', 'UPDATE {ks}.lane_watermark SET w_floor = ? WHERE shard = ? AND lane = ? IF w_floor = ? AND w >= ?', LWT),
});
