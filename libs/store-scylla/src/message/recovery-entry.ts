import { UnavailableError } from '@qim/store-core';
import type { CommitKey } from '@qim/store-core';
import { toCqlBigint } from '../session/statements';
import { commitKeyParams } from './commit-rows';
import type { MessageContext } from './message-context';
import { ttlSecondsOf } from './message-context';
import { recoveryBucketOf } from './tables/recovery-table';

/**
 * Longest a recovery index write may take, from the position it carries (the writer's clock
 * before sending) to its acknowledgement. A slower write is written again at a fresh position:
 * the scan's progress never passes a position younger than `RECOVERY_SETTLE_MS`, which covers
 * this bound plus the clock skew allowance, so an acknowledged entry is never behind the progress.
 */
export const RECOVERY_WRITE_BOUND_MS = 2_500n;
const WRITE_ATTEMPTS = 3;

/**
 * Writes a recovery index entry for `key` at the writer's current position, living until
 * `deadlineMs` (the commit's fixed deadline), and returns the position. Retried at a fresh position
 * when the acknowledgement came later than `RECOVERY_WRITE_BOUND_MS`.
 */
export async function writeRecoveryEntry(ctx: MessageContext, key: CommitKey, createdAt: bigint, deadlineMs: bigint): Promise<bigint> {
  const keyParams = commitKeyParams(key);
  for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
    const position = ctx.clock.nowMs();
    const at = toCqlBigint(position, 'recovery position');
    await ctx.cql.run(ctx.recovery.insert, [recoveryBucketOf(at), at, ...keyParams, toCqlBigint(createdAt, 'createdAt'), ttlSecondsOf(deadlineMs - position)]);
    if (ctx.clock.nowMs() - position <= RECOVERY_WRITE_BOUND_MS) return position;
  }
  throw new UnavailableError('the recovery index write kept exceeding its time bound; retry');
}

/** Marks the commit's own recovery entry done (whole-row rewrite, same deadline): the scan passes it without reading the commit. */
export async function markRecoveryEntryDone(ctx: MessageContext, key: CommitKey, position: bigint, createdAt: bigint, ttlSeconds: number): Promise<void> {
  const at = toCqlBigint(position, 'recovery position');
  await ctx.cql.run(ctx.recovery.markDone, [recoveryBucketOf(at), at, ...commitKeyParams(key), toCqlBigint(createdAt, 'createdAt'), ttlSeconds]);
}
