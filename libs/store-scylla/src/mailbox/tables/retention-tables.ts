import { defineTable } from '../../schema/table-spec';
import { LWT, READ, WRITE, named } from '../../session/statements';

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
    `UPDATE {ks}.mailbox_retention_meta SET retention_format_version = ?, ledger_generation = ?, ` +
      `inspected_through_bucket = ?, expired_gap_boundary = ?, active_ledger = ?
 WHERE tenant_id = ? AND user_id = ?
 IF retention_format_version = ? AND ledger_generation = ? AND inspected_through_bucket = ? AND expired_gap_boundary = ? AND active_ledger = ?`,
    LWT,
  ),
});

/**
 * `mailbox_retention_bucket_v3 ((tenant_id, user_id), epoch, day)`: the bucket proof of one
 * user/epoch/day — the highest seq ever written for that day and the day's absolute expiry. Every
 * write is a plain upsert `USING TIMESTAMP <seq>` (ADR-0022 §2), so the highest seq wins in whatever
 * order writers land and a replay changes nothing; it is written before (or in one batch with) the
 * entry, so it is always ≥ every entry of its day. Lifetime (ADR-0022 §6): no TTL while a ledger
 * item refers to it (an inspection may come long after the entries expired, and a missing proof is
 * damage); once its day is consumed it is *released* — rewritten whole with the same values and
 * stamp `USING TTL` (an expiring cell wins over a live one of the same timestamp) — and a proof
 * written for an already consumed day carries that TTL from its first write.
 *
 * Why not `_v2`: the lane-watermark layout wrote `_v2` rows by LWT, stamped with wall-clock
 * microseconds (≈ 1.8·10^15). A seq stamp is `epoch·2^47 + offset + 1`, below that for every epoch
 * up to 12, so an old row would outrank every new write of its key and pin `max_seq` below the live
 * entries: the gap boundary would come out too low and a cursor could skip an expired entry
 * silently. A new table holds only seq-stamped cells.
 */
export const RETENTION_BUCKET_TABLE = defineTable({
  name: 'mailbox_retention_bucket_v3',
  create: `CREATE TABLE IF NOT EXISTS {ks}.mailbox_retention_bucket_v3 (
  tenant_id blob, user_id blob, epoch int, day bigint, max_seq bigint, expires_at bigint,
  PRIMARY KEY ((tenant_id, user_id), epoch, day)
)`,
  columns: { tenant_id: 'blob', user_id: 'blob', epoch: 'int', day: 'bigint', max_seq: 'bigint', expires_at: 'bigint' },
  addable: [],
});

export const RETENTION_BUCKET = Object.freeze({
  /**
   * Every proof row of the user, all epochs (one partition): a day's proof is the highest of its rows
   * in every epoch, and consuming a day releases each of them. Bounded by the ledger: at most 32 live
   * days per epoch still written, plus released rows for one released-proof lifetime.
   */
  selectUser: named(
    'retention_bucket.select_user',
    'SELECT epoch, day, max_seq, expires_at FROM {ks}.mailbox_retention_bucket_v3 WHERE tenant_id = ? AND user_id = ?',
    READ,
  ),
  /** Whole-row upsert stamped with the seq it proves (params end with the timestamp = seq). */
  upsert: named(
    'retention_bucket.upsert',
    'INSERT INTO {ks}.mailbox_retention_bucket_v3 (tenant_id, user_id, epoch, day, max_seq, expires_at) VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ?',
    WRITE,
  ),
  /**
   * The same whole-row upsert with a TTL (params end with ttl seconds, then the timestamp = seq): a
   * proof no ledger item refers to any more. With the stored proof's own seq as the stamp it replaces
   * the live cells and row marker (same timestamp: the expiring one wins) without changing a value.
   */
  release: named(
    'retention_bucket.release',
    'INSERT INTO {ks}.mailbox_retention_bucket_v3 (tenant_id, user_id, epoch, day, max_seq, expires_at) VALUES (?, ?, ?, ?, ?, ?) USING TTL ? AND TIMESTAMP ?',
    WRITE,
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
