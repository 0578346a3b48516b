import type { ShardEpoch } from '@qim/store-core';
import type { CqlRunner } from '../../session/cql-runner';
import { optU64 } from '../cql/rows';
import { FRONTIER } from '../tables/frontier-table';

/** The stored frontier of `shardEpoch` (LOCAL_QUORUM read); null when no page was applied yet. */
export async function readFrontier(cql: CqlRunner, { shard, epoch }: ShardEpoch): Promise<bigint | null> {
  const row = await cql.one(FRONTIER.select, [shard, epoch]);
  return row === null ? null : optU64(row, 'frontier', 'shard frontier');
}

/**
 * Writes `F = toOffset` stamped `toOffset + 1`: a higher frontier already stored (a later page, a
 * faster worker) carries a higher stamp and keeps winning, so the frontier never moves backwards.
 */
export async function writeFrontier(cql: CqlRunner, { shard, epoch }: ShardEpoch, toOffset: bigint): Promise<void> {
  await cql.run(FRONTIER.upsert, [shard, epoch, toOffset, toOffset + 1n]);
}
