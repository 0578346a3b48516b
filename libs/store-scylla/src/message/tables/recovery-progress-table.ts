import { named } from '../../session/statements';
import { defineTable } from '../../schema/table-spec';

/** The only partition of `commit_recovery_progress`. */
export const RECOVERY_PROGRESS_SCOPE = 0;

/**
 * `commit_recovery_progress`: one row, the recovery scan's progress — a position in the recovery
 * index before which every entry is done, or belongs to a commit that is finished (COMMITTED or
 * gone) or has a successor entry after it. The scan starts there, so a finished prefix is never
 * read twice. Any value a scan writes is valid (each is checked on its own), so concurrent scanners
 * need no LWT: a last writer that is behind only makes the next pass re-read a little. Whole-row
 * INSERT with a TTL (aux lifetime + 1 h): the row is gone when everything it skips is gone.
 */
export const RECOVERY_PROGRESS_TABLE = defineTable({
  name: 'commit_recovery_progress',
  create: `CREATE TABLE IF NOT EXISTS {ks}.commit_recovery_progress (
    scope int, position bigint, tenant_id blob, sender_id blob, client_message_id blob,
    PRIMARY KEY ((scope))
  ) WITH default_time_to_live = 0`,
  columns: { scope: 'int', position: 'bigint', tenant_id: 'blob', sender_id: 'blob', client_message_id: 'blob' },
  addable: [],
});

export const RECOVERY_PROGRESS_CQL = Object.freeze({
  select: named('recovery_progress.select', `SELECT position, tenant_id, sender_id, client_message_id FROM {ks}.commit_recovery_progress WHERE scope = ?`, {
    profile: 'read',
    idempotent: true,
  }),
  upsert: named(
    'recovery_progress.upsert',
    `INSERT INTO {ks}.commit_recovery_progress (scope, position, tenant_id, sender_id, client_message_id) VALUES (?, ?, ?, ?, ?) USING TTL ?`,
    { profile: 'write', idempotent: true },
  ),
});
