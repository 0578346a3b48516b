import { defineTable } from '../../schema/table-spec';
import { LWT, READ, WRITE, named } from '../cql/named-statement';

/**
 * `dispatch_progress ((shard, dispatch_id))`: the first-sight facts of a dispatch (digest,
 * canonical offset, mailbox seq, manifest blob) plus `max_observed_offset`, `last_seen_at`,
 * `completed_at` and the GC marker (`gc_scheduled_at` = the one fixed deadline, ms) and `gc_phase`
 * (null → 1 → 2). Created `IF NOT EXISTS`; every later change is a CAS that requires a null marker
 * (except the GC's own phase moves).
 */
export const PROGRESS_TABLE = defineTable({
  name: 'dispatch_progress',
  create: `CREATE TABLE IF NOT EXISTS {ks}.dispatch_progress (
  shard int, dispatch_id blob,
  digest blob, canonical_offset bigint, mailbox_seq bigint, manifest blob,
  max_observed_offset bigint, last_seen_at bigint, completed_at bigint,
  gc_scheduled_at bigint, gc_phase int,
  PRIMARY KEY ((shard, dispatch_id))
)`,
  columns: {
    shard: 'int',
    dispatch_id: 'blob',
    digest: 'blob',
    canonical_offset: 'bigint',
    mailbox_seq: 'bigint',
    manifest: 'blob',
    max_observed_offset: 'bigint',
    last_seen_at: 'bigint',
    completed_at: 'bigint',
    gc_scheduled_at: 'bigint',
    gc_phase: 'int',
  },
  addable: ['gc_scheduled_at', 'gc_phase'],
});

/** Every regular column, in the order the whole-row GC rewrite lists them. */
export const PROGRESS_COLS =
  'digest, canonical_offset, mailbox_seq, manifest, max_observed_offset, last_seen_at, completed_at, gc_scheduled_at, gc_phase';

export const PROGRESS = Object.freeze({
  select: named(
    'progress.select',
    `SELECT ${PROGRESS_COLS}, TTL(digest) AS ttl FROM {ks}.dispatch_progress WHERE shard = ? AND dispatch_id = ?`,
    READ,
  ),
  /** First sight: fixes the receipt. */
  create: named(
    'progress.create',
    `INSERT INTO {ks}.dispatch_progress (shard, dispatch_id, digest, canonical_offset, mailbox_seq, manifest, max_observed_offset, last_seen_at, completed_at)
 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) IF NOT EXISTS`,
    LWT,
  ),
  /** Later sight: raise max observed, refresh last seen; CAS on the read values and a null marker. */
  seen: named(
    'progress.seen',
    `UPDATE {ks}.dispatch_progress SET max_observed_offset = ?, last_seen_at = ? WHERE shard = ? AND dispatch_id = ?
 IF gc_scheduled_at = null AND max_observed_offset = ? AND last_seen_at = ?`,
    LWT,
  ),
  /** Last declared chunk completed. */
  complete: named(
    'progress.complete',
    'UPDATE {ks}.dispatch_progress SET completed_at = ? WHERE shard = ? AND dispatch_id = ? IF gc_scheduled_at = null AND completed_at = null',
    LWT,
  ),
  /** GC: fixes the one deadline, conditioned on the facts the GC gate judged. */
  mark: named(
    'progress.gc_mark',
    `UPDATE {ks}.dispatch_progress SET gc_scheduled_at = ? WHERE shard = ? AND dispatch_id = ?
 IF gc_scheduled_at = null AND last_seen_at = ? AND max_observed_offset = ? AND completed_at = ?`,
    LWT,
  ),
  /** GC phase move `from → to` under the fixed deadline (also the lock before the final rewrite). */
  phase: named(
    'progress.gc_phase',
    'UPDATE {ks}.dispatch_progress SET gc_phase = ? WHERE shard = ? AND dispatch_id = ? IF gc_phase = ? AND gc_scheduled_at = ?',
    LWT,
  ),
  writetime: named(
    'progress.writetime',
    'SELECT WRITETIME(digest) AS a, WRITETIME(max_observed_offset) AS b, WRITETIME(last_seen_at) AS c, WRITETIME(completed_at) AS d, WRITETIME(gc_scheduled_at) AS e, WRITETIME(gc_phase) AS f FROM {ks}.dispatch_progress WHERE shard = ? AND dispatch_id = ?',
    READ,
  ),
  /** GC: whole-row rewrite with the remaining TTL (never `UPDATE … USING TTL`). */
  rewrite: named(
    'progress.gc_rewrite',
    `INSERT INTO {ks}.dispatch_progress (shard, dispatch_id, ${PROGRESS_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) USING TTL ? AND TIMESTAMP ?`,
    WRITE,
  ),
});
