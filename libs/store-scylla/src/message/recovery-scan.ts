import { InvalidInputError } from '@qim/store-core';
import type { CommitSnapshot, HousekeepingReport } from '@qim/store-core';
import { loadCommitRow } from './commit-rows';
import type { MessageContext } from './message-context';
import { RecoveryPass } from './recovery-pass';
import { before, indexEntryOf, positionParams, recoveryWindow } from './recovery-window';
import { recoveryBucketOf } from './tables/recovery-table';

/** Rows per CQL page when housekeeping walks the recovery index. */
const GC_PAGE_ROWS = 256;

/**
 * `scanRecoverableCommits`: one bounded `RecoveryPass` — complete RESERVED/RECORDED/OUTBOXED
 * commits with `createdAt < cutoff`, each once, oldest first, at most `maxItems`.
 */
export async function scanRecoverableCommits(ctx: MessageContext, cutoffMs: bigint, maxItems: number): Promise<CommitSnapshot[]> {
  if (!Number.isInteger(maxItems) || maxItems < 1) throw new InvalidInputError('maxItems must be a positive integer');
  return new RecoveryPass(ctx, cutoffMs, maxItems).run();
}

/**
 * `gcCommittedAuxiliary`: commit rows and recovery entries are removed by their TTL (no DELETE is
 * ever sent). This pass observes it over the live window of the recovery index, bounded by `limit`
 * entries: `examined` = entries read, `reclaimed` = entries whose commit the server has already
 * expired (the entry follows within its TTL). Nothing is written.
 */
export async function gcCommittedAuxiliary(ctx: MessageContext, nowMs: bigint, limit: number): Promise<HousekeepingReport> {
  if (!Number.isInteger(limit) || limit < 1) throw new InvalidInputError('limit must be a positive integer');
  const window = recoveryWindow(nowMs, ctx.auxTtlMs);
  let examined = 0;
  let reclaimed = 0;
  for (let bucket = recoveryBucketOf(window.from); bucket <= window.lastBucket; bucket++) {
    let after: readonly unknown[] = positionParams(before(bucket === recoveryBucketOf(window.from) ? window.from : -1n));
    for (;;) {
      const rs = await ctx.cql.run(ctx.recovery.scan, [bucket, ...after, Math.min(GC_PAGE_ROWS, limit - examined + 1)]);
      for (const r of rs.rows) {
        if (examined >= limit) return { examined, reclaimed, more: true };
        const entry = indexEntryOf(r);
        examined++;
        if ((await loadCommitRow(ctx, entry.key)) === null) reclaimed++;
        after = positionParams(entry.at);
      }
      if (rs.rows.length < GC_PAGE_ROWS) break;
    }
  }
  return { examined, reclaimed, more: false };
}
