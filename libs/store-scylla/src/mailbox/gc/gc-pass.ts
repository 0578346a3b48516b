import { InvalidInputError, assertU64 } from '@qim/store-core';
import type { HousekeepingReport } from '@qim/store-core';
import { PAGE_ROWS } from '../cql/mailbox-cql';
import type { MailboxContext } from '../mailbox-context';
import { COMPLETED } from '../tables/lane-tables';
import { gcDispatch } from './gc-dispatch';
import { parseIndexRow } from './gc-facts';

/**
 * `gcCompletedDispatches`: walks the shard's completed index in `completed_at` order. Rows already
 * rewritten with a TTL are finished work waiting for their deadline and are passed over; every other
 * row is one examined candidate (resumed when it carries a marker, judged by the gate otherwise), at
 * most `limit` per pass. `more` = candidates were left because of the limit.
 */
export async function gcCompletedDispatches(ctx: MailboxContext, cutoffMs: bigint, limit: number): Promise<HousekeepingReport> {
  assertU64(cutoffMs, 'GC cutoff');
  if (!Number.isInteger(limit) || limit < 1) throw new InvalidInputError(`limit must be an integer ≥ 1: ${limit}`);
  let examined = 0;
  let reclaimed = 0;
  let pageState: string | undefined;
  do {
    const rs = await ctx.cql.run(COMPLETED.candidates, [ctx.shardEpoch.shard], { fetchSize: PAGE_ROWS, ...(pageState ? { pageState } : {}) });
    for (const row of rs.rows) {
      const idx = parseIndexRow(row);
      if (idx.ttl !== null && idx.ttl > 0) continue;
      if (examined === limit) return { examined, reclaimed, more: true };
      examined += 1;
      if ((await gcDispatch(ctx, idx, cutoffMs)) === 'reclaimed') reclaimed += 1;
    }
    pageState = rs.pageState ?? undefined;
  } while (pageState);
  return { examined, reclaimed, more: false };
}
