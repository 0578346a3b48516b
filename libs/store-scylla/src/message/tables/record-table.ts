import { named } from '../../session/statements';
import { defineTable } from '../../schema/table-spec';

/** Records per `seq_bucket` partition: bounds a conversation's partitions (≤ 1024 records each). */
export const SEQ_BUCKET_SIZE = 1024n;

/** The record partition of a seq. */
export function seqBucketOf(seq: bigint): bigint {
  return seq / SEQ_BUCKET_SIZE;
}

/**
 * `message_record`: the canonical `MessageRecord` bytes at `(tenant, conversation, seq_bucket)` /
 * `conversation_seq`. Same-value upsert; table TTL 0; only Ephemeral rows carry a per-row TTL
 * (`USING TTL 0` = none).
 */
export const RECORD_TABLE = defineTable({
  name: 'message_record',
  create: `CREATE TABLE IF NOT EXISTS {ks}.message_record (
    tenant_id blob, conversation_id blob, seq_bucket bigint, conversation_seq bigint, record blob,
    PRIMARY KEY ((tenant_id, conversation_id, seq_bucket), conversation_seq)
  ) WITH default_time_to_live = 0`,
  columns: { tenant_id: 'blob', conversation_id: 'blob', seq_bucket: 'bigint', conversation_seq: 'bigint', record: 'blob' },
  addable: [],
});

const PARTITION = 'tenant_id = ? AND conversation_id = ? AND seq_bucket = ?';

export const RECORD_CQL = Object.freeze({
  upsert: named(
    'record.upsert',
    `INSERT INTO {ks}.message_record (tenant_id, conversation_id, seq_bucket, conversation_seq, record) VALUES (?, ?, ?, ?, ?) USING TTL ?`,
    { profile: 'write', idempotent: true },
  ),
  /** Batch read of one bucket's records by seq list. */
  selectMany: named('record.selectMany', `SELECT conversation_seq, record FROM {ks}.message_record WHERE ${PARTITION} AND conversation_seq IN ?`, {
    profile: 'read',
    idempotent: true,
  }),
});
