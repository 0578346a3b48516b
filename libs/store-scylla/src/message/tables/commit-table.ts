import { statement } from '../../session/statements';
import { defineTable } from '../../schema/table-spec';

/**
 * `message_commit`: one row per commit key — the stable request identity, the complete
 * `CommitIntent` blob (store-core codec bytes), the lifecycle state, created_at and committed_at.
 * An auxiliary fact with one fixed deadline (birth + 2 h): the reserving INSERT writes every cell
 * with the full TTL; a state move rewrites only intent/state (and committed_at) with what is left
 * of that deadline, rounded up, so no rewrite renews the row and no rewritten cell dies before the
 * row marker. `identity` and `created_at` are written once; the write time of `identity` is the
 * row's birth. A row whose identity/intent/state is gone has expired and reads as absent.
 */
export const COMMIT_TABLE = defineTable({
  name: 'message_commit',
  create: `CREATE TABLE IF NOT EXISTS {ks}.message_commit (
    tenant_id blob, sender_id blob, client_message_id blob,
    identity blob, intent blob, state text, created_at bigint, committed_at bigint,
    PRIMARY KEY ((tenant_id, sender_id, client_message_id))
  ) WITH default_time_to_live = 0`,
  columns: {
    tenant_id: 'blob',
    sender_id: 'blob',
    client_message_id: 'blob',
    identity: 'blob',
    intent: 'blob',
    state: 'text',
    created_at: 'bigint',
    committed_at: 'bigint',
  },
  addable: ['committed_at'],
});

const KEY = 'tenant_id = ? AND sender_id = ? AND client_message_id = ?';

export const COMMIT_CQL = Object.freeze({
  /** The stored commit and the write time (µs) of its never-rewritten identity cell: the row's birth. */
  select: statement(
    `SELECT identity, intent, state, committed_at, WRITETIME(identity) AS born_us FROM {ks}.message_commit WHERE ${KEY}`,
    { profile: 'read', idempotent: true },
  ),
  /** The complete RESERVED commit; the only first fact of a commit key (LOCAL_SERIAL). */
  insertReserved: statement(
    `INSERT INTO {ks}.message_commit (tenant_id, sender_id, client_message_id, identity, intent, state, created_at)
     VALUES (?, ?, ?, ?, ?, 'RESERVED', ?) IF NOT EXISTS USING TTL ?`,
    { profile: 'lwt', idempotent: false },
  ),
  /**
   * A state move (RESERVED → RECORDED, RECORDED → OUTBOXED): intent and state with what is left of
   * the row's TTL. `IF state = ?` exists only on UPDATE, so this is an `UPDATE … USING TTL` — and
   * it cannot leave a ghost row: the row marker was INSERTed with the same fixed deadline (the
   * ghost-row hazard of the seed's mailbox GC is an INSERT *without* TTL followed by an UPDATE with
   * one), and the remaining TTL is rounded up, so no rewritten cell dies before the marker.
   */
  advance: statement(
    `UPDATE {ks}.message_commit USING TTL ? SET intent = ?, state = ? WHERE ${KEY} IF state = ?`,
    { profile: 'lwt', idempotent: false },
  ),
  /** OUTBOXED → COMMITTED, also setting committed_at. */
  commit: statement(
    `UPDATE {ks}.message_commit USING TTL ? SET intent = ?, state = ?, committed_at = ? WHERE ${KEY} IF state = ?`,
    { profile: 'lwt', idempotent: false },
  ),
});
