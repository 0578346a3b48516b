import { applyInspect, expiredLedgerDays } from '@qim/store-core';
import type { RetentionMeta } from '@qim/store-core';
import { RETRY, casLoop } from '../context/mailbox-context';
import type { MailboxContext } from '../context/mailbox-context';
import { readBucketProofs, releaseBucketProofs } from './bucket-proof';
import { readMeta, writeMeta } from './meta-row';

/**
 * Lazy read-side inspection (seed order: ledger → bucket proof → gap). Every ledger item whose
 * absolute expiry has passed must have its same-day bucket proof (the highest of the day's rows in
 * every epoch) covering it, else `CorruptEntryError`; `applyInspect` merges the proofs' real max seqs into
 * the gap boundary (never into trim) and removes the items, and ONE meta LWT compares the whole
 * stored state (version, generation, inspected-through, gap, ledger blob). A concurrent append wins
 * → re-read and inspect again. Once the meta write succeeded the consumed days' proofs are released
 * (ADR-0022 §6: every epoch's row rewritten with a TTL). Returns the meta as of the inspection (null: clean user).
 */
export async function inspectRetention(ctx: MailboxContext, tenant: Buffer, user: Buffer): Promise<RetentionMeta | null> {
  return casLoop('retention inspect', async () => {
    const stored = await readMeta(ctx.cql, tenant, user);
    if (stored === null) return null;
    const now = ctx.clock.nowMs();
    const days = expiredLedgerDays(stored.meta, now);
    if (days.length === 0) return stored.meta;
    const proofs = await readBucketProofs(ctx.cql, tenant, user, days);
    const next = applyInspect(stored.meta, now, proofs);
    if (next === stored.meta) return next;
    if (!(await writeMeta(ctx.cql, tenant, user, stored, next))) return RETRY;
    await releaseBucketProofs(ctx.cql, tenant, user, days, ctx.releasedProofTtlSeconds);
    return next;
  });
}
