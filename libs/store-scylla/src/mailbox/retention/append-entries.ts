import {
  InvalidInputError,
  applyAppend,
  assertSeqInEpoch,
  canonicalizeEvents,
  dayOf,
  encodeMailboxEntry,
  entryExpiry,
  id128ToBytes,
} from '@qim/store-core';
import type { AppendOutcome, AppendReport, MailboxEntry, MailboxEntryInput } from '@qim/store-core';
import { ENTRY } from '../tables/entry-table';
import { RETRY, casLoop, forEachLimited } from '../mailbox-context';
import type { MailboxContext } from '../mailbox-context';
import { writeBucketProof } from './bucket-proof';
import { entryTtlSeconds } from './entry-ttl';
import { readMeta, writeMeta } from './meta-row';

/** One validated entry, ready to write: canonical events, fixed expiry, encoded blob. */
interface PreparedEntry {
  readonly entry: MailboxEntry;
  readonly day: number;
  readonly blob: Buffer;
  readonly tenant: Buffer;
  readonly user: Buffer;
}

/**
 * Validates and encodes a whole batch before anything is written: epoch of every seq (a start-of-epoch
 * seq is no entry seq), canonical event order (a repeated ordinal → `InvalidInputError`), the fixed
 * absolute expiry `entryExpiry(createdAt, retention)`.
 */
export function prepareEntries(ctx: MailboxContext, inputs: readonly MailboxEntryInput[]): PreparedEntry[] {
  return inputs.map((input) => {
    const parts = assertSeqInEpoch(input.mailboxSeq, ctx.shardEpoch.epoch);
    if (parts.offset === null) throw new InvalidInputError(`mailbox seq ${input.mailboxSeq} is the start of its epoch, not an entry seq`);
    const entry: MailboxEntry = {
      tenantId: input.tenantId,
      userId: input.userId,
      mailboxSeq: input.mailboxSeq,
      createdAt: input.createdAt,
      events: canonicalizeEvents(input.events),
      expiresAt: entryExpiry(input.createdAt, ctx.gc.entryRetentionMs),
    };
    return { entry, day: dayOf(input.createdAt), blob: encodeMailboxEntry(entry), tenant: id128ToBytes(input.tenantId), user: id128ToBytes(input.userId) };
  });
}

/**
 * One entry, in the seed's order: (1) bucket proof, (2) ONE meta LWT (`applyAppend`: consume expired
 * ledger days into the gap, register/raise today, bump the generation — skipped when nothing changes),
 * (3) the entry row with the TTL ending at its absolute expiry. An expired replay stops after (2).
 */
async function appendOne(ctx: MailboxContext, p: PreparedEntry): Promise<'written' | 'expired'> {
  const { entry } = p;
  await writeBucketProof(ctx.cql, p.tenant, p.user, ctx.shardEpoch.epoch, p.day, entry.mailboxSeq, entry.expiresAt);
  const outcome: AppendOutcome = await casLoop('retention meta append', async () => {
    const stored = await readMeta(ctx.cql, p.tenant, p.user);
    const out = applyAppend(stored?.meta ?? null, { day: p.day, seq: entry.mailboxSeq, expiresAt: entry.expiresAt }, ctx.clock.nowMs());
    if (!out.changed) return out;
    return (await writeMeta(ctx.cql, p.tenant, p.user, stored, out.meta)) ? out : RETRY;
  });
  if (outcome.expiredReplay) return 'expired';
  const ttl = entryTtlSeconds(entry.expiresAt, ctx.clock.nowMs());
  if (ttl <= 0) return 'expired';
  await ctx.cql.run(ENTRY.insert, [p.tenant, p.user, entry.mailboxSeq, p.blob, ttl]);
  return 'written';
}

/**
 * Writes prepared entries: users in parallel (bounded by `writeConcurrency`), each user's entries in
 * input order (they share one meta row, so running them together would only lose CAS races).
 */
export async function writeEntries(ctx: MailboxContext, entries: readonly PreparedEntry[]): Promise<AppendReport> {
  const byUser = new Map<string, PreparedEntry[]>();
  for (const p of entries) {
    const k = `${p.entry.tenantId}:${p.entry.userId}`;
    const list = byUser.get(k);
    if (list) list.push(p);
    else byUser.set(k, [p]);
  }
  let written = 0;
  let expired = 0;
  await forEachLimited([...byUser.values()], ctx.writeConcurrency, async (list) => {
    for (const p of list) {
      if ((await appendOne(ctx, p)) === 'written') written += 1;
      else expired += 1;
    }
  });
  return { written, expired };
}
