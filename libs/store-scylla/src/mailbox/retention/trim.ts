import { assertSeqInEpoch, id128ToBytes } from '@qim/store-core';
import type { Id128 } from '@qim/store-core';
import type { CqlRunner } from '../../session/cql-runner';
import { optU64 } from '../cql/rows';
import { RETRY, casLoop } from '../context/mailbox-context';
import type { MailboxContext } from '../context/mailbox-context';
import { TRIM } from '../tables/retention-tables';

/** The user's stored trim; null when never set. */
export async function readTrim(cql: CqlRunner, tenant: Buffer, user: Buffer): Promise<bigint | null> {
  const row = await cql.one(TRIM.select, [tenant, user]);
  return row === null ? null : optU64(row, 'trim', 'mailbox trim');
}

/**
 * Monotonic trim raise: nothing is written when the stored trim already covers `seq`; a first trim
 * is `INSERT … IF NOT EXISTS`, every later one `UPDATE … IF trim < ?`. A lost race re-reads.
 */
export async function truncateBefore(ctx: MailboxContext, tenantId: Id128, userId: Id128, seq: bigint): Promise<void> {
  assertSeqInEpoch(seq, ctx.shardEpoch.epoch);
  const tenant = id128ToBytes(tenantId);
  const user = id128ToBytes(userId);
  await casLoop('trim raise', async () => {
    const current = await readTrim(ctx.cql, tenant, user);
    if (current !== null && current >= seq) return undefined;
    const r = current === null ? await ctx.cql.lwt(TRIM.init, [tenant, user, seq]) : await ctx.cql.lwt(TRIM.raise, [seq, tenant, user, seq]);
    return r.applied ? undefined : RETRY;
  });
}
