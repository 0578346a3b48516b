import { named } from '../../session/statements';
import { defineTable } from '../../schema/table-spec';

/** One recovery partition per hour of position. */
export const RECOVERY_BUCKET_MS = 3_600_000n;

/** The hourly partition of a position (ms). */
export function recoveryBucketOf(positionMs: bigint): bigint {
  return positionMs / RECOVERY_BUCKET_MS;
}

/**
 * `commit_recovery_v2`: the recovery index. One row per recovery entry, clustered by its
 * **position** — the writing store's clock when the row was written, not the commit's created_at —
 * so a row can only appear at the head of the index, never behind the scan's progress
 * (ADR-0030). Written by reserve before the claim is completed, with what is left of the commit's
 * fixed deadline; overwritten whole with `done = true` when the commit is COMMITTED (the scan skips
 * such rows without reading their commit); re-written at a new position by the scan for a commit it
 * could not pass (a successor), so that the progress can move on. Never deleted: TTL only.
 */
export const RECOVERY_TABLE = defineTable({
  name: 'commit_recovery_v2',
  create: `CREATE TABLE IF NOT EXISTS {ks}.commit_recovery_v2 (
    hour_bucket bigint, position bigint, tenant_id blob, sender_id blob, client_message_id blob, created_at bigint, done boolean,
    PRIMARY KEY ((hour_bucket), position, tenant_id, sender_id, client_message_id)
  ) WITH default_time_to_live = 0`,
  columns: {
    hour_bucket: 'bigint',
    position: 'bigint',
    tenant_id: 'blob',
    sender_id: 'blob',
    client_message_id: 'blob',
    created_at: 'bigint',
    done: 'boolean',
  },
  addable: ['done'],
});

const ROW = 'position, tenant_id, sender_id, client_message_id';

export const RECOVERY_CQL = Object.freeze({
  /** An entry (reserve's row, or a scan's successor): `done` unset. */
  insert: named('recovery.insert', `INSERT INTO {ks}.commit_recovery_v2 (hour_bucket, ${ROW}, created_at) VALUES (?, ?, ?, ?, ?, ?) USING TTL ?`, {
    profile: 'write',
    idempotent: true,
  }),
  /** The same row, whole, marked done (COMMITTED) with what is left of the commit's deadline. */
  markDone: named(
    'recovery.markDone',
    `INSERT INTO {ks}.commit_recovery_v2 (hour_bucket, ${ROW}, created_at, done) VALUES (?, ?, ?, ?, ?, ?, true) USING TTL ?`,
    {
      profile: 'write',
      idempotent: true,
    },
  ),
  /** One page of a bucket strictly after a clustering position. */
  scan: named('recovery.scan', `SELECT ${ROW}, created_at, done FROM {ks}.commit_recovery_v2 WHERE hour_bucket = ? AND (${ROW}) > (?, ?, ?, ?) LIMIT ?`, {
    profile: 'read',
    idempotent: true,
  }),
});
