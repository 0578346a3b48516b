import { defineTable } from '../../schema/table-spec';
import { LWT, READ, named } from '../cql/named-statement';

/**
 * `mailbox_retention_meta ((tenant_id, user_id))`: the V4 retention meta of one user — format
 * version (4), `ledger_generation`, `inspected_through_bucket` (day, −1 = none),
 * `expired_gap_boundary` (`NO_GAP` = none) and the canonical active-ledger blob ("QRL\x01").
 * Every write is an LWT comparing all five fields, so an append and an inspect cannot ABA each other.
 */
export const RETENTION_META_TABLE = defineTable({
  name: 'mailbox_retention_meta',
  create: `CREATE TABLE IF NOT EXISTS {ks}.mailbox_retention_meta (
  tenant_id blob, user_id blob,
  retention_format_version int, ledger_generation bigint, inspected_through_bucket bigint,
  expired_gap_boundary bigint, active_ledger blob,
  PRIMARY KEY ((tenant_id, user_id))
)`,
  columns: {
    tenant_id: 'blob',
    user_id: 'blob',
    retention_format_version: 'int',
    ledger_generation: 'bigint',
    inspected_through_bucket: 'bigint',
    expired_gap_boundary: 'bigint',
    active_ledger: 'blob',
  },
  addable: [],
});

const META_COLS = 'retention_format_version, ledger_generation, inspected_through_bucket, expired_gap_boundary, active_ledger';

export const RETENTION_META = Object.freeze({
  select: named('retention_meta.select', `SELECT ${META_COLS} FROM {ks}.mailbox_retention_meta WHERE tenant_id = ? AND user_id = ?`, READ),
  /** First meta of a user. */
  insert: named(
    'retention_meta.insert',
    `INSERT INTO {ks}.mailbox_retention_meta (tenant_id, user_id, ${META_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?) IF NOT EXISTS`,
    LWT,
  ),
  /** Whole-state compare-and-set: new five fields, then the expected five fields. */
  cas: named(
    'retention_meta.cas',
    `UPDATE {ks}.mailbox_retention_meta SET retention_format_version = ?, ledger_generation = ?, inspected_through_bucket = ?, expired_gap_boundary = ?, active_ledger = ?
 WHERE tenant_id = ? AND user_id = ?
 IF retention_format_version = ? AND ledger_generation = ? AND inspected_through_bucket = ? AND expired_gap_boundary = ? AND active_ledger = ?`,
    LWT,
  ),
});

/**
 * `mailbox_retention_bucket_v2 ((tenant_id, user_id), epoch, day)`: the bucket proof of one
 * user/epoch/day — the absolute expiry of that day's entries and the highest seq ever written for
 * it. Written (LWT, only ever raised) before the meta, so it is always ≥ its ledger item. No TTL: an
 * inspection may come long after the entries expired, and a missing proof is damage.
 */
export const RETENTION_BUCKET_TABLE = defineTable({
  name: 'mailbox_retention_bucket_v2',
  create: `CREATE TABLE IF NOT EXISTS {ks}.mailbox_retention_bucket_v2 (
  tenant_id blob, user_id blob, epoch int, day bigint, max_seq bigint, expires_at bigint,
  PRIMARY KEY ((tenant_id, user_id), epoch, day)
)`,
  columns: { tenant_id: 'blob', user_id: 'blob', epoch: 'int', day: 'bigint', max_seq: 'bigint', expires_at: 'bigint' },
  addable: [],
});

export const RETENTION_BUCKET = Object.freeze({
  select: named(
    'retention_bucket.select',
    'SELECT max_seq, expires_at FROM {ks}.mailbox_retention_bucket_v2 WHERE tenant_id = ? AND user_id = ? AND epoch = ? AND day = ?',
    READ,
  ),
  selectDays: named(
    'retention_bucket.select_days',
    'SELECT day, max_seq, expires_at FROM {ks}.mailbox_retention_bucket_v2 WHERE tenant_id = ? AND user_id = ? AND epoch = ? AND day IN ?',
    READ,
  ),
  insert: named(
    'retention_bucket.insert',
    'INSERT INTO {ks}.mailbox_retention_bucket_v2 (tenant_id, user_id, epoch, day, max_seq, expires_at) VALUES (?, ?, ?, ?, ?, ?) IF NOT EXISTS',
    LWT,
  ),
  /** Raise: new max_seq/expires_at, then the expected (read) pair. */
  raise: named(
    'retention_bucket.raise',
    'UPDATE {ks}.mailbox_retention_bucket_v2 SET max_seq = ?, expires_at = ? WHERE tenant_id = ? AND user_id = ? AND epoch = ? AND day = ? IF max_seq = ? AND expires_at = ?',
    LWT,
  ),
});

/** `mailbox_meta ((tenant_id, user_id))`: the user's trim, only ever raised (`IF trim < ?`). */
export const TRIM_TABLE = defineTable({
  name: 'mailbox_meta',
  create: `CREATE TABLE IF NOT EXISTS {ks}.mailbox_meta (
  tenant_id blob, user_id blob, trim bigint,
  PRIMARY KEY ((tenant_id, user_id))
)`,
  columns: { tenant_id: 'blob', user_id: 'blob', trim: 'bigint' },
  addable: [],
});

export const TRIM = Object.freeze({
  select: named('trim.select', 'SELECT trim FROM {ks}.mailbox_meta WHERE tenant_id = ? AND user_id = ?', READ),
  init: named('trim.init', 'INSERT INTO {ks}.mailbox_meta (tenant_id, user_id, trim) VALUES (?, ?, ?) IF NOT EXISTS', LWT),
  raise: named('trim.raise', 'UPDATE {ks}.mailbox_meta SET trim = ? WHERE tenant_id = ? AND user_id = ? IF trim < ?', LWT),
});
