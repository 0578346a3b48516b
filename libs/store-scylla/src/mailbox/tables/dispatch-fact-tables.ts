import { defineTable } from '../../schema/table-spec';
import { LWT, READ, WRITE, named } from '../cql/named-statement';

/**
 * `dispatch_observation ((shard, dispatch_id), observed_offset)`: every source offset a dispatch
 * was seen at (the duplicate log), written `IF NOT EXISTS` before the lane sources, so the GC can
 * enumerate every source row between the canonical and the max observed offset.
 */
export const OBSERVATION_TABLE = defineTable({
  name: 'dispatch_observation',
  create: `CREATE TABLE IF NOT EXISTS {ks}.dispatch_observation (
  shard int, dispatch_id blob, observed_offset bigint, recorded_at bigint, gc_deadline bigint,
  PRIMARY KEY ((shard, dispatch_id), observed_offset)
)`,
  columns: { shard: 'int', dispatch_id: 'blob', observed_offset: 'bigint', recorded_at: 'bigint', gc_deadline: 'bigint' },
  addable: ['gc_deadline'],
});

export const OBSERVATION = Object.freeze({
  insert: named(
    'observation.insert',
    'INSERT INTO {ks}.dispatch_observation (shard, dispatch_id, observed_offset, recorded_at) VALUES (?, ?, ?, ?) IF NOT EXISTS',
    LWT,
  ),
  list: named(
    'observation.list',
    'SELECT observed_offset, recorded_at, gc_deadline, TTL(recorded_at) AS ttl FROM {ks}.dispatch_observation WHERE shard = ? AND dispatch_id = ?',
    READ,
  ),
  lock: named(
    'observation.gc_lock',
    'UPDATE {ks}.dispatch_observation SET gc_deadline = ? WHERE shard = ? AND dispatch_id = ? AND observed_offset = ? IF recorded_at = ? AND gc_deadline = null',
    LWT,
  ),
  writetime: named(
    'observation.writetime',
    'SELECT WRITETIME(recorded_at) AS a, WRITETIME(gc_deadline) AS b FROM {ks}.dispatch_observation WHERE shard = ? AND dispatch_id = ? AND observed_offset = ?',
    READ,
  ),
  rewrite: named(
    'observation.gc_rewrite',
    'INSERT INTO {ks}.dispatch_observation (shard, dispatch_id, observed_offset, recorded_at, gc_deadline) VALUES (?, ?, ?, ?, ?) USING TTL ? AND TIMESTAMP ?',
    WRITE,
  ),
});

/**
 * `lane_dispatch ((shard, lane), observed_offset)`: one source row per lane for every real source
 * offset (empty lanes too): the dispatch that owns the offset and how many chunks the manifest
 * declares for this lane (0 for an empty lane, which is complete at once). `IF NOT EXISTS` on the
 * offset rejects a second dispatch claiming the same source record.
 */
export const SOURCE_TABLE = defineTable({
  name: 'lane_dispatch',
  create: `CREATE TABLE IF NOT EXISTS {ks}.lane_dispatch (
  shard int, lane int, observed_offset bigint, dispatch_id blob, chunk_count int, recorded_at bigint, gc_deadline bigint,
  PRIMARY KEY ((shard, lane), observed_offset)
) WITH CLUSTERING ORDER BY (observed_offset ASC)`,
  columns: {
    shard: 'int',
    lane: 'int',
    observed_offset: 'bigint',
    dispatch_id: 'blob',
    chunk_count: 'int',
    recorded_at: 'bigint',
    gc_deadline: 'bigint',
  },
  addable: ['gc_deadline'],
});

const SOURCE_COLS = 'dispatch_id, chunk_count, recorded_at, gc_deadline, TTL(dispatch_id) AS ttl';

export const SOURCE = Object.freeze({
  insert: named(
    'source.insert',
    'INSERT INTO {ks}.lane_dispatch (shard, lane, observed_offset, dispatch_id, chunk_count, recorded_at) VALUES (?, ?, ?, ?, ?, ?) IF NOT EXISTS',
    LWT,
  ),
  /** One offset in a set of lanes (the GC reads all 64 lanes of an observation at once). */
  atOffset: named(
    'source.at_offset',
    `SELECT lane, observed_offset, ${SOURCE_COLS} FROM {ks}.lane_dispatch WHERE shard = ? AND lane IN ? AND observed_offset = ?`,
    READ,
  ),
  /** A lane's sources above an offset, ascending (the lowest recorded source). */
  above: named(
    'source.above',
    `SELECT observed_offset, ${SOURCE_COLS} FROM {ks}.lane_dispatch WHERE shard = ? AND lane = ? AND observed_offset > ? ORDER BY observed_offset ASC LIMIT ?`,
    READ,
  ),
  /** A lane's sources in `(after, upTo]`, ascending (watermark verification). */
  between: named(
    'source.between',
    `SELECT observed_offset, ${SOURCE_COLS} FROM {ks}.lane_dispatch WHERE shard = ? AND lane = ? AND observed_offset > ? AND observed_offset <= ? ORDER BY observed_offset ASC LIMIT ?`,
    READ,
  ),
  lock: named(
    'source.gc_lock',
    'UPDATE {ks}.lane_dispatch SET gc_deadline = ? WHERE shard = ? AND lane = ? AND observed_offset = ? IF dispatch_id = ? AND gc_deadline = null',
    LWT,
  ),
  writetime: named(
    'source.writetime',
    'SELECT WRITETIME(dispatch_id) AS a, WRITETIME(chunk_count) AS b, WRITETIME(recorded_at) AS c, WRITETIME(gc_deadline) AS d FROM {ks}.lane_dispatch WHERE shard = ? AND lane = ? AND observed_offset = ?',
    READ,
  ),
  rewrite: named(
    'source.gc_rewrite',
    'INSERT INTO {ks}.lane_dispatch (shard, lane, observed_offset, dispatch_id, chunk_count, recorded_at, gc_deadline) VALUES (?, ?, ?, ?, ?, ?, ?) USING TTL ? AND TIMESTAMP ?',
    WRITE,
  ),
});

/** `dispatch_chunk ((shard, dispatch_id, lane), chunk_id)`: the durable completion fact of a declared chunk. */
export const CHUNK_TABLE = defineTable({
  name: 'dispatch_chunk',
  create: `CREATE TABLE IF NOT EXISTS {ks}.dispatch_chunk (
  shard int, dispatch_id blob, lane int, chunk_id int, completed_at bigint, gc_deadline bigint,
  PRIMARY KEY ((shard, dispatch_id, lane), chunk_id)
)`,
  columns: { shard: 'int', dispatch_id: 'blob', lane: 'int', chunk_id: 'int', completed_at: 'bigint', gc_deadline: 'bigint' },
  addable: ['gc_deadline'],
});

export const CHUNK = Object.freeze({
  insert: named(
    'chunk.insert',
    'INSERT INTO {ks}.dispatch_chunk (shard, dispatch_id, lane, chunk_id, completed_at) VALUES (?, ?, ?, ?, ?) IF NOT EXISTS',
    LWT,
  ),
  one: named('chunk.one', 'SELECT completed_at FROM {ks}.dispatch_chunk WHERE shard = ? AND dispatch_id = ? AND lane = ? AND chunk_id = ?', READ),
  lane: named('chunk.lane', 'SELECT chunk_id FROM {ks}.dispatch_chunk WHERE shard = ? AND dispatch_id = ? AND lane = ?', READ),
  lanes: named(
    'chunk.lanes',
    'SELECT lane, chunk_id, completed_at, gc_deadline, TTL(completed_at) AS ttl FROM {ks}.dispatch_chunk WHERE shard = ? AND dispatch_id = ? AND lane IN ?',
    READ,
  ),
  lock: named(
    'chunk.gc_lock',
    'UPDATE {ks}.dispatch_chunk SET gc_deadline = ? WHERE shard = ? AND dispatch_id = ? AND lane = ? AND chunk_id = ? IF completed_at = ? AND gc_deadline = null',
    LWT,
  ),
  writetime: named(
    'chunk.writetime',
    'SELECT WRITETIME(completed_at) AS a, WRITETIME(gc_deadline) AS b FROM {ks}.dispatch_chunk WHERE shard = ? AND dispatch_id = ? AND lane = ? AND chunk_id = ?',
    READ,
  ),
  rewrite: named(
    'chunk.gc_rewrite',
    'INSERT INTO {ks}.dispatch_chunk (shard, dispatch_id, lane, chunk_id, completed_at, gc_deadline) VALUES (?, ?, ?, ?, ?, ?) USING TTL ? AND TIMESTAMP ?',
    WRITE,
  ),
});
