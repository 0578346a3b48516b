import { defineTable } from '../../schema/table-spec';
import { READ, WRITE, named } from '../../session/statements';

/**
 * `dispatch_index ((shard, epoch, dispatch_id))`: the first sight of a dispatch id (ADR-0022 §4) —
 * its canonical (lowest) source offset and the SHA-256 digest of that record. Every sight writes the
 * whole row `USING TTL <to createdAt + dispatchDedupeMs> AND TIMESTAMP 2^62 − offset`: the lowest
 * offset carries the highest stamp and wins, every rewrite ends at the same second (the TTL is
 * computed from the record's absolute expiry), and once that second passes the row is gone entirely
 * (an expired cell still outranks a longer-lived lower-stamped one, so nothing resurfaces). Never
 * UPDATEd, never deleted, no TimeWindowCompactionStrategy (the stamps are not wall-clock times).
 */
export const DISPATCH_INDEX_TABLE = defineTable({
  name: 'dispatch_index',
  create: `CREATE TABLE IF NOT EXISTS {ks}.dispatch_index (
  shard int, epoch int, dispatch_id blob, canonical_offset bigint, digest blob,
  PRIMARY KEY ((shard, epoch, dispatch_id))
)`,
  columns: { shard: 'int', epoch: 'int', dispatch_id: 'blob', canonical_offset: 'bigint', digest: 'blob' },
  addable: [],
});

export const DISPATCH_INDEX = Object.freeze({
  /** Params: shard, epoch, dispatch_id, offset, digest, ttl (s), timestamp (= 2^62 − offset). */
  upsert: named(
    'dispatch_index.upsert',
    'INSERT INTO {ks}.dispatch_index (shard, epoch, dispatch_id, canonical_offset, digest) VALUES (?, ?, ?, ?, ?) USING TTL ? AND TIMESTAMP ?',
    WRITE,
  ),
  /** The canonical sights of several dispatch ids of one shard and epoch (a bounded `IN`). */
  selectMany: named(
    'dispatch_index.select',
    'SELECT dispatch_id, canonical_offset, digest FROM {ks}.dispatch_index WHERE shard = ? AND epoch = ? AND dispatch_id IN ?',
    READ,
  ),
});
