import {
  InvalidInputError,
  assertSeqInEpoch,
  canonicalizeEvents,
  dayOf,
  encodeMailboxEntry,
  entryExpiry,
  id128ToBytes,
  splitMailboxSeq,
} from '@qim/store-core';
import type { AppendOutcome, AppendReport, MailboxEntry, MailboxEntryInput } from '@qim/store-core';
import type { BatchPart } from '../cql/mailbox-cql';
import { ENTRY } from '../tables/entry-table';
import { RETRY, casLoop } from '../mailbox-context';
import { WorkPool } from '../cql/work-pool';
import type { MailboxContext } from '../mailbox-context';
import { appendWithProofs, proofsToRead } from './append-rule';
import { bucketProofPart, readBucketProofs, writeBucketProof } from './bucket-proof';
import { entryTtlSeconds } from './entry-ttl';
import { readMeta, writeMeta } from './meta-row';
import type { StoredMeta } from './meta-row';
import { FAST_PATH_SAFETY_MS } from './registered-days';
import { UserLocks } from './user-locks';

/** One validated entry, ready to write: canonical events, fixed expiry, encoded blob. */
export interface PreparedEntry {
  readonly entry: MailboxEntry;
  readonly day: number;
  readonly blob: Buffer;
  readonly tenant: Buffer;
  readonly user: Buffer;
  /** `tenant:user`, the key of the registered-days cache and of per-user ordering. */
  readonly userKey: string;
}

/**
 * Validates and encodes a whole batch before anything is written: epoch of every seq (a start-of-epoch
 * seq is no entry seq), one group per `(user, seq)`, canonical event order (a repeated ordinal →
 * `InvalidInputError`), the fixed absolute expiry `entryExpiry(createdAt, retention)` and its TTL range.
 */
export function prepareEntries(ctx: MailboxContext, inputs: readonly MailboxEntryInput[]): PreparedEntry[] {
  const seen = new Set<string>();
  const tenants = new Map<string, Buffer>();
  const now = ctx.clock.nowMs();
  return inputs.map((input) => {
    const parts = assertSeqInEpoch(input.mailboxSeq, ctx.shardEpoch.epoch);
    if (parts.offset === null) throw new InvalidInputError(`mailbox seq ${input.mailboxSeq} is the start of its epoch, not an entry seq`);
    const userKey = `${input.tenantId}:${input.userId}`;
    const entryKey = `${userKey}:${input.mailboxSeq}`;
    if (seen.has(entryKey)) throw new InvalidInputError(`two event groups for user ${input.userId} at seq ${input.mailboxSeq} in one call`);
    seen.add(entryKey);
    const entry: MailboxEntry = {
      tenantId: input.tenantId,
      userId: input.userId,
      mailboxSeq: input.mailboxSeq,
      createdAt: input.createdAt,
      events: canonicalizeEvents(input.events),
      expiresAt: entryExpiry(input.createdAt, ctx.gc.entryRetentionMs),
    };
    entryTtlSeconds(entry.expiresAt, now);
    let tenant = tenants.get(input.tenantId);
    if (tenant === undefined) tenants.set(input.tenantId, (tenant = id128ToBytes(input.tenantId)));
    return { entry, day: dayOf(input.createdAt), blob: encodeMailboxEntry(entry), tenant, user: id128ToBytes(input.userId), userKey };
  });
}

function entryPart(p: PreparedEntry, ttl: number): BatchPart {
  return { statement: ENTRY.insert, params: [p.tenant, p.user, p.entry.mailboxSeq, p.blob, ttl] };
}

/** Fast path: the day is registered and far from expiry — proof and entry in one single-partition batch, no LWT. */
async function tryFastPath(ctx: MailboxContext, p: PreparedEntry, proof: BatchPart): Promise<boolean> {
  const now = ctx.clock.nowMs();
  if (!ctx.registered.covers(p.userKey, p.day, p.entry.expiresAt, now, ctx.clockSkewAllowanceMs + FAST_PATH_SAFETY_MS)) return false;
  await ctx.cql.batch([proof, entryPart(p, entryTtlSeconds(p.entry.expiresAt, now))]);
  return true;
}

/**
 * Slow path, in the seed's order: (1) bucket proof, (2) ONE meta LWT (`appendWithProofs`: consume
 * expired days at their proofs' max seq, register the day or merge an expired entry into the gap;
 * skipped when nothing changes), (3) the entry with the TTL ending at its absolute expiry. An expired
 * entry stops after (2).
 */
async function slowPath(ctx: MailboxContext, p: PreparedEntry, proof: BatchPart, first: StoredMeta | null): Promise<'written' | 'expired'> {
  const { entry } = p;
  await writeBucketProof(ctx.cql, proof);
  let stored = first;
  const outcome: AppendOutcome = await casLoop('retention meta append', async (attempt) => {
    if (attempt > 0) stored = await readMeta(ctx.cql, p.tenant, p.user);
    const now = ctx.clock.nowMs();
    const wanted = proofsToRead(stored?.meta ?? null, now, (seq) => splitMailboxSeq(seq).epoch);
    const proofs = wanted.length === 0 ? new Map() : await readBucketProofs(ctx.cql, p.tenant, p.user, wanted);
    const out = appendWithProofs(stored?.meta ?? null, { day: p.day, seq: entry.mailboxSeq, expiresAt: entry.expiresAt }, now, proofs);
    if (!out.changed) return out;
    return (await writeMeta(ctx.cql, p.tenant, p.user, stored, out.meta)) ? out : RETRY;
  });
  ctx.registered.learn(p.userKey, outcome.meta);
  if (outcome.expiredReplay) return 'expired';
  const ttl = entryTtlSeconds(entry.expiresAt, ctx.clock.nowMs());
  if (ttl <= 0) return 'expired';
  await ctx.cql.run(ENTRY.insert, entryPart(p, ttl).params);
  return 'written';
}

/**
 * One entry (ADR-0022 §5): the fast path when the user's day is known to be registered; on a cache
 * miss one LOCAL_QUORUM meta read, then the fast path if the day is there, else the slow path.
 */
export async function appendEntry(ctx: MailboxContext, p: PreparedEntry): Promise<'written' | 'expired'> {
  const proof = bucketProofPart(p.tenant, p.user, ctx.shardEpoch.epoch, p.day, p.entry.mailboxSeq, p.entry.expiresAt);
  if (await tryFastPath(ctx, p, proof)) return 'written';
  const stored = await readMeta(ctx.cql, p.tenant, p.user);
  ctx.registered.learn(p.userKey, stored?.meta ?? null);
  if (await tryFastPath(ctx, p, proof)) return 'written';
  return slowPath(ctx, p, proof, stored);
}

/** Written/expired counts of a run of entries. */
export interface EntryTally {
  written: number;
  expired: number;
}

/**
 * Queues the entries on `pool`, one job each, serialising the entries of one user (they share a
 * meta row and a registered-days record: run together on a new day they would only race for the
 * same LWT). `afterEntry` runs after each acknowledged entry (the crash seam).
 */
export function queueEntries(ctx: MailboxContext, pool: WorkPool, entries: readonly PreparedEntry[], tally: EntryTally, locks: UserLocks, afterEntry: () => void): void {
  for (const p of entries) {
    pool.push(() =>
      locks.run(p.userKey, async () => {
        if (pool.failed) return;
        if ((await appendEntry(ctx, p)) === 'written') tally.written += 1;
        else tally.expired += 1;
        afterEntry();
      }),
    );
  }
}

/** `appendBatch`: every entry through the store's bounded pool, users in parallel. */
export async function writeEntries(ctx: MailboxContext, entries: readonly PreparedEntry[]): Promise<AppendReport> {
  const pool = new WorkPool(ctx.cql.limit.limit);
  const tally: EntryTally = { written: 0, expired: 0 };
  queueEntries(ctx, pool, entries, tally, new UserLocks(entries.map((p) => p.userKey)), () => undefined);
  await pool.done();
  return { written: tally.written, expired: tally.expired };
}
