import { defineTable } from '../../schema/table-spec';
import { READ, WRITE, named } from '../../session/statements';

/**
 * `mailbox_entry ((tenant_id, user_id), mailbox_seq)`: one row holds one user's complete event
 * group at one seq (the canonical `Entry` blob). Rows die only by their TTL, which is computed from
 * the entry's fixed absolute expiry (see `entryTtlSeconds`); TWCS with one-day windows and
 * `gc_grace_seconds = 86400` let whole expired SSTables drop. There is no DELETE.
 */
export const ENTRY_TABLE = defineTable({
  name: 'mailbox_entry',
  create: `CREATE TABLE IF NOT EXISTS {ks}.mailbox_entry (
  tenant_id blob, user_id blob, mailbox_seq bigint, entry blob,
  PRIMARY KEY ((tenant_id, user_id), mailbox_seq)
) WITH CLUSTERING ORDER BY (mailbox_seq ASC)
  AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': '1'}
  AND gc_grace_seconds = 86400
  AND default_time_to_live = 0`,
  columns: { tenant_id: 'blob', user_id: 'blob', mailbox_seq: 'bigint', entry: 'blob' },
  addable: [],
});

export const ENTRY = Object.freeze({
  /** Same-value whole-row write with the TTL that ends at the entry's absolute expiry. */
  insert: named('entry.insert', 'INSERT INTO {ks}.mailbox_entry (tenant_id, user_id, mailbox_seq, entry) VALUES (?, ?, ?, ?) USING TTL ?', WRITE),
  /** Ascending page `after < seq ≤ upTo`. */
  range: named(
    'entry.range',
    'SELECT mailbox_seq, entry FROM {ks}.mailbox_entry WHERE tenant_id = ? AND user_id = ? ' +
      'AND mailbox_seq > ? AND mailbox_seq <= ? ORDER BY mailbox_seq ASC LIMIT ?',
    READ,
  ),
});
