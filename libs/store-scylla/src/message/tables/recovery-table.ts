import { statement } from '../../session/statements';
import { defineTable } from '../../schema/table-spec';

/** One recovery partition per hour of created_at. */
export const RECOVERY_BUCKET_MS = 3_600_000n;

/** The hourly partition of a created_at (ms). */
export function recoveryBucketOf(createdAtMs: bigint): bigint {
  return createdAtMs / RECOVERY_BUCKET_MS;
}

/**
 * `commit_recovery`: hourly partitions of `(created_at, commit key)`, written before the reserve
 * CAS with the auxiliary 2-hour TTL. The scanner re-reads each commit and filters terminal and
 * vanished ones; a row whose commit never came into being is an orphan it skips.
 */
export const RECOVERY_TABLE = defineTable({
  name: 'commit_recovery',
  create: `CREATE TABLE IF NOT EXISTS {ks}.commit_recovery (
    hour_bucket bigint, created_at bigint, tenant_id blob, sender_id blob, client_message_id blob,
    PRIMARY KEY ((hour_bucket), created_at, tenant_id, sender_id, client_message_id)
  ) WITH default_time_to_live = 0`,
  columns: { hour_bucket: 'bigint', created_at: 'bigint', tenant_id: 'blob', sender_id: 'blob', client_message_id: 'blob' },
  addable: [],
});

const COLS = 'created_at, tenant_id, sender_id, client_message_id';

export const RECOVERY_CQL = Object.freeze({
  insert: statement(`INSERT INTO {ks}.commit_recovery (hour_bucket, ${COLS}) VALUES (?, ?, ?, ?, ?) USING TTL ?`, {
    profile: 'write',
    idempotent: true,
  }),
  /** A bucket page strictly after a clustering position and strictly before the cutoff. */
  scan: statement(
    `SELECT ${COLS} FROM {ks}.commit_recovery WHERE hour_bucket = ? AND (${COLS}) > (?, ?, ?, ?) AND (created_at) < (?) LIMIT ?`,
    { profile: 'read', idempotent: true },
  ),
});
