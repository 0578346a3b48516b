import { named } from '../../session/statements';
import { defineTable } from '../../schema/table-spec';

/**
 * `history_index`: one row per recorded seq of a conversation, with the same TTL as its record.
 * Holds the message id (a coordinate check against the record) and the record's byte size (so a
 * page's byte budget is decided before any record is read). O(1) head/earliest, directional pages.
 */
export const HISTORY_INDEX_TABLE = defineTable({
  name: 'history_index',
  create: `CREATE TABLE IF NOT EXISTS {ks}.history_index (
    tenant_id blob, conversation_id blob, conversation_seq bigint, message_id blob, record_size int,
    PRIMARY KEY ((tenant_id, conversation_id), conversation_seq)
  ) WITH default_time_to_live = 0`,
  columns: { tenant_id: 'blob', conversation_id: 'blob', conversation_seq: 'bigint', message_id: 'blob', record_size: 'int' },
  addable: [],
});

const PARTITION = 'tenant_id = ? AND conversation_id = ?';
const COLS = 'conversation_seq, message_id, record_size, TTL(message_id) AS ttl';
const READ = { profile: 'read', idempotent: true } as const;

export const HISTORY_INDEX_CQL = Object.freeze({
  upsert: named(
    'history_index.upsert',
    `INSERT INTO {ks}.history_index (tenant_id, conversation_id, conversation_seq, message_id, record_size) VALUES (?, ?, ?, ?, ?) USING TTL ?`,
    { profile: 'write', idempotent: true },
  ),
  /** Newest first, from the head. */
  olderFromHead: named('history_index.olderFromHead', `SELECT ${COLS} FROM {ks}.history_index WHERE ${PARTITION} ORDER BY conversation_seq DESC LIMIT ?`, READ),
  /** Newest first, strictly below the anchor. */
  olderFrom: named(
    'history_index.olderFrom',
    `SELECT ${COLS} FROM {ks}.history_index WHERE ${PARTITION} AND conversation_seq < ? ORDER BY conversation_seq DESC LIMIT ?`,
    READ,
  ),
  /** Oldest first, from the earliest. */
  newerFromStart: named(
    'history_index.newerFromStart',
    `SELECT ${COLS} FROM {ks}.history_index WHERE ${PARTITION} ORDER BY conversation_seq ASC LIMIT ?`,
    READ,
  ),
  /** Oldest first, strictly above the anchor. */
  newerFrom: named(
    'history_index.newerFrom',
    `SELECT ${COLS} FROM {ks}.history_index WHERE ${PARTITION} AND conversation_seq > ? ORDER BY conversation_seq ASC LIMIT ?`,
    READ,
  ),
  /** One index row (re-read when its record is missing). */
  selectOne: named('history_index.selectOne', `SELECT ${COLS} FROM {ks}.history_index WHERE ${PARTITION} AND conversation_seq = ?`, READ),
});
