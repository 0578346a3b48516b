import { defineTable } from '../../schema/table-spec';
import { READ, WRITE, named } from '../../session/statements';

/**
 * `shard_frontier ((shard, epoch))`: the shard frontier (ADR-0022 §1) — every record of the shard's
 * dispatch partition with offset ≤ `frontier` is applied. Written only by a whole-row upsert stamped
 * `USING TIMESTAMP toOffset + 1`, so the highest frontier wins whatever order writers land in (a
 * zombie's late, lower write loses) and it never moves backwards. No TTL: one row per shard and epoch.
 * Never LWT-written (a Paxos write would carry a wall-clock stamp and outrank every offset stamp).
 */
export const FRONTIER_TABLE = defineTable({
  name: 'shard_frontier',
  create: `CREATE TABLE IF NOT EXISTS {ks}.shard_frontier (
  shard int, epoch int, frontier bigint,
  PRIMARY KEY ((shard, epoch))
)`,
  columns: { shard: 'int', epoch: 'int', frontier: 'bigint' },
  addable: [],
});

export const FRONTIER = Object.freeze({
  select: named('frontier.select', 'SELECT frontier FROM {ks}.shard_frontier WHERE shard = ? AND epoch = ?', READ),
  /** Params: shard, epoch, frontier, timestamp (= frontier + 1). */
  upsert: named('frontier.upsert', 'INSERT INTO {ks}.shard_frontier (shard, epoch, frontier) VALUES (?, ?, ?) USING TIMESTAMP ?', WRITE),
});
