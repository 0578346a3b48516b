import { named } from '../../session/statements';
import { defineTable } from '../../schema/table-spec';

/**
 * `message_commit`: one row per commit key. It has two forms (ADR-0027):
 * - a **claim** — `state = 'CLAIMED'`, the stable request identity and a random claim token, no
 *   intent: the first fact of a key, written by `INSERT … IF NOT EXISTS` before any seq is spent;
 * - a **commit** — the complete `CommitIntent` blob (store-core codec bytes) in state RESERVED,
 *   RECORDED, OUTBOXED or COMMITTED, with created_at, committed_at and `recovery_at` (the position
 *   of its recovery index row). RECORDED is stored either as the state cell RECORDED (older
 *   writers) or as the state cell RESERVED plus `recorded` = the claim token (the record mark, a
 *   plain write: `decodeCommitRow`). A claim becomes a commit only by the conditional completion
 *   `IF state = 'CLAIMED' AND claim = <token>`, so at most one seq is ever bound to a key.
 * An auxiliary fact with one fixed deadline (birth + 2 h): the claiming INSERT writes every cell
 * with the full TTL; later writes (takeover, completion, record mark, state moves) carry what is
 * left of that deadline, rounded up. `identity` is written once; its write time is the row's birth. A row whose
 * identity or state is gone (or a commit without intent, a claim without token) has expired and
 * reads as absent.
 */
export const COMMIT_TABLE = defineTable({
  name: 'message_commit',
  create: `CREATE TABLE IF NOT EXISTS {ks}.message_commit (
    tenant_id blob, sender_id blob, client_message_id blob,
    identity blob, intent blob, state text, created_at bigint, committed_at bigint, claim blob, recovery_at bigint, recorded blob,
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
    claim: 'blob',
    recovery_at: 'bigint',
    recorded: 'blob',
  },
  addable: ['committed_at', 'claim', 'recovery_at', 'recorded'],
});

const KEY = 'tenant_id = ? AND sender_id = ? AND client_message_id = ?';

export const COMMIT_CQL = Object.freeze({
  /** The stored row with the write times (µs) of its never-rewritten identity cell (the row's birth) and of its claim token. */
  select: named(
    'commit.select',
    `SELECT identity, intent, state, claim, recovery_at, committed_at, recorded, WRITETIME(identity) AS born_us, WRITETIME(claim) AS claim_us
     FROM {ks}.message_commit WHERE ${KEY}`,
    { profile: 'read', idempotent: true },
  ),
  /** The claim: the only first fact of a commit key (LOCAL_SERIAL). A lost INSERT returns the existing row. */
  claim: named(
    'commit.claim',
    `INSERT INTO {ks}.message_commit (tenant_id, sender_id, client_message_id, identity, state, claim)
     VALUES (?, ?, ?, ?, 'CLAIMED', ?) IF NOT EXISTS USING TTL ?`,
    { profile: 'lwt', idempotent: false },
  ),
  /**
   * Replaces the claim token of a claim that is still the one we saw: a takeover of a stale or
   * abandoned claim (new token), or an abandonment by its own claimant (empty token).
   */
  reclaim: named('commit.reclaim', `UPDATE {ks}.message_commit USING TTL ? SET claim = ? WHERE ${KEY} IF state = 'CLAIMED' AND claim = ?`, {
    profile: 'lwt',
    idempotent: false,
  }),
  /** The claim becomes the complete RESERVED commit, only while it is still ours. */
  complete: named(
    'commit.complete',
    `UPDATE {ks}.message_commit USING TTL ? SET intent = ?, state = 'RESERVED', created_at = ?, recovery_at = ?
     WHERE ${KEY} IF state = 'CLAIMED' AND claim = ?`,
    { profile: 'lwt', idempotent: false },
  ),
  /**
   * putRecord's RECORDED, without an LWT: the record mark `recorded = <claim token>`, written after
   * the record and its index row are durable. Safe as a plain write because (1) it is monotonic — no
   * step ever unsets it, and the state cell, which only LWTs write, stays RESERVED, so the mark
   * cannot undo a later move; (2) it names its incarnation — a mark only counts when it equals the
   * row's claim token, which is fixed once the claim is completed; (3) a late mark of an earlier,
   * expired incarnation of the key cannot overwrite the current one's: the mark is written
   * `USING TIMESTAMP <the incarnation's birth>`, and a new incarnation is born only after the old
   * one's deadline. Its TTL is what is left of the row's deadline, like every rewrite (a mark landing
   * after its row expired is a lone cell, no row marker, of at most 1 s that reads as absent).
   */
  record: named('commit.record', `UPDATE {ks}.message_commit USING TTL ? AND TIMESTAMP ? SET recorded = ? WHERE ${KEY}`, {
    profile: 'write',
    idempotent: true,
  }),
  /**
   * A state move (RECORDED → OUTBOXED, from the state cell the row holds: RECORDED, or RESERVED when
   * the commit was recorded by its mark) of this incarnation of the key (its claim token): intent
   * and state with what is left of the row's TTL. `IF state = ?` exists only on UPDATE, so this is
   * an `UPDATE … USING TTL` — and it cannot leave a ghost row: the row marker was INSERTed by the claim with the same fixed
   * deadline (the ghost-row hazard of the seed's mailbox GC is an INSERT *without* TTL followed by
   * an UPDATE with one), and the remaining TTL is rounded up, so no rewritten cell outlives the
   * marker by more than the rounding.
   */
  advance: named('commit.advance', `UPDATE {ks}.message_commit USING TTL ? SET intent = ?, state = ? WHERE ${KEY} IF state = ? AND claim = ?`, {
    profile: 'lwt',
    idempotent: false,
  }),
  /** RECORDED or OUTBOXED → COMMITTED, also setting committed_at. */
  commit: named('commit.commit', `UPDATE {ks}.message_commit USING TTL ? SET intent = ?, state = ?, committed_at = ? WHERE ${KEY} IF state = ? AND claim = ?`, {
    profile: 'lwt',
    idempotent: false,
  }),
});
