import { InvalidInputError, assertSeqInEpoch, canonicalizeEvents, dayOf, encodeMailboxEntry, entryExpiry, id128ToBytes } from '@qim/store-core';
import type { AppendOutcome, AppendReport, MailboxEntry, MailboxEntryInput, RetentionMeta } from '@qim/store-core';
import type { BatchPart } from '../../session/cql-runner';
import { ENTRY } from '../tables/entry-table';
import { RETRY, casLoop } from '../context/mailbox-context';
import { WorkPool } from '../cql/work-pool';
import { replicaSetOf } from '../cql/replica-key';
import type { MailboxContext } from '../context/mailbox-context';
import { appendWithProofs, proofsToRead } from './append-rule';
import { bucketProofPart, readBucketProofs, releaseBucketProofs, releasedProofPart, writeBucketProof } from './bucket-proof';
import { entryTtlSeconds } from './entry-ttl';
import { readMeta, writeMeta } from './meta-row';
import type { StoredMeta } from './meta-row';
import { FAST_PATH_SAFETY_MS } from '../context/registered-days';
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
 * Most fast-path entries sent as one unlogged batch. A batch request costs the server about as much
 * as a single-row INSERT plus the rows it carries (measured side by side: a proof + entry batch 1.4–1.9
 * raw INSERTs, four of them in one batch 2.7–3.3), so grouping is what brings the two-row entry near
 * the raw rate. 4 entries = 4 partitions, under Cassandra's 10-partition warning for unlogged batches;
 * 8 measured no better.
 */
export const FAST_BATCH_ENTRIES = 4;
/** Most entry-blob bytes in one such batch (below Cassandra's 5 KiB batch-size warning); a bigger entry goes alone. */
export const FAST_BATCH_BYTES = 4_096;

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

/** True when the entry may take the fast path now: its day is registered and far from expiry (no meta write). */
function covered(ctx: MailboxContext, p: PreparedEntry, now: bigint): boolean {
  return ctx.registered.covers(p.userKey, p.day, p.entry.expiresAt, now, ctx.clockSkewAllowanceMs + FAST_PATH_SAFETY_MS);
}

/** The fast path's rows of one entry: its bucket proof and the entry (one partition: one mutation per replica, durable together). */
function fastParts(ctx: MailboxContext, p: PreparedEntry, now: bigint): BatchPart[] {
  const proof = bucketProofPart(p.tenant, p.user, ctx.shardEpoch.epoch, p.day, p.entry.mailboxSeq, p.entry.expiresAt);
  return [proof, entryPart(p, entryTtlSeconds(p.entry.expiresAt, now))];
}

/** Fast path: the day is registered and far from expiry — proof and entry in one single-partition batch, no LWT. */
async function tryFastPath(ctx: MailboxContext, p: PreparedEntry): Promise<boolean> {
  const now = ctx.clock.nowMs();
  if (!covered(ctx, p, now)) return false;
  await ctx.cql.batch(fastParts(ctx, p, now));
  return true;
}

/** True when `day` was consumed in `meta` (inspected through and no live item): no item can refer to its proof again. */
function dayConsumed(meta: RetentionMeta | null, day: number): boolean {
  return meta !== null && meta.inspectedThrough !== null && day <= meta.inspectedThrough && !meta.ledger.some((i) => i.day === day);
}

/**
 * The days whose proofs (every epoch's row) no ledger item refers to after `outcome` (ADR-0022 §6):
 * the days the meta write consumed, and the entry's own day when it is not (or no longer) in the ledger.
 */
function releasableDays(before: RetentionMeta | null, after: RetentionMeta, day: number): number[] {
  const live = new Set(after.ledger.map((i) => i.day));
  const out = new Set((before?.ledger ?? []).filter((i) => !live.has(i.day)).map((i) => i.day));
  if (!live.has(day)) out.add(day);
  return [...out];
}

/**
 * Slow path, in the seed's order: (1) bucket proof (with the released-proof TTL from its first write
 * when its day was already consumed), (2) ONE meta LWT (`appendWithProofs`: consume
 * expired days at their proofs' max seq, register the day or merge an expired entry into the gap;
 * skipped when nothing changes), (3) the entry with the TTL ending at its absolute expiry. An expired
 * entry stops after (2).
 */
async function slowPath(ctx: MailboxContext, p: PreparedEntry, proof: BatchPart, first: StoredMeta | null): Promise<'written' | 'expired'> {
  const { entry } = p;
  const consumed = dayConsumed(first?.meta ?? null, p.day);
  await writeBucketProof(
    ctx.cql,
    consumed ? releasedProofPart(p.tenant, p.user, ctx.shardEpoch.epoch, p.day, entry.mailboxSeq, entry.expiresAt, ctx.releasedProofTtlSeconds) : proof,
  );
  let stored = first;
  const outcome: AppendOutcome = await casLoop('retention meta append', async (attempt) => {
    if (attempt > 0) stored = await readMeta(ctx.cql, p.tenant, p.user);
    const now = ctx.clock.nowMs();
    const wanted = proofsToRead(stored?.meta ?? null, now);
    const proofs = wanted.length === 0 ? new Map() : await readBucketProofs(ctx.cql, p.tenant, p.user, wanted);
    const out = appendWithProofs(stored?.meta ?? null, { day: p.day, seq: entry.mailboxSeq, expiresAt: entry.expiresAt }, now, proofs);
    if (!out.changed) return out;
    return (await writeMeta(ctx.cql, p.tenant, p.user, stored, out.meta)) ? out : RETRY;
  });
  ctx.registered.learn(p.userKey, outcome.meta, ctx.clock.nowMs());
  const releasable = releasableDays((stored as StoredMeta | null)?.meta ?? null, outcome.meta, p.day);
  await releaseBucketProofs(ctx.cql, p.tenant, p.user, releasable, ctx.releasedProofTtlSeconds);
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
  if (await tryFastPath(ctx, p)) return 'written';
  const readAt = ctx.clock.nowMs();
  const stored = await readMeta(ctx.cql, p.tenant, p.user);
  ctx.registered.learn(p.userKey, stored?.meta ?? null, readAt);
  if (await tryFastPath(ctx, p)) return 'written';
  const proof = bucketProofPart(p.tenant, p.user, ctx.shardEpoch.epoch, p.day, p.entry.mailboxSeq, p.entry.expiresAt);
  return slowPath(ctx, p, proof, stored);
}

/** Written/expired counts of a run of entries. */
export interface EntryTally {
  written: number;
  expired: number;
}

/**
 * Queues the entries on `pool`. Entries whose day is known to be registered (the fast path) go in
 * unlogged batches of up to `FAST_BATCH_ENTRIES` entries owned by one replica set (the batch's
 * coordinator is a replica of every row, so nothing is forwarded to a further node), each batch
 * weighing its entries on the pool, so the entries in flight stay within the store's bound. Every
 * other entry is a job of its own (`appendEntry`), and the entries of one user run one after the
 * other (they share a meta row and a registered-days record: run together on a new day they would
 * only race for the same LWT). `afterEntry` runs after each acknowledged entry (the crash seam).
 */
export function queueEntries(
  ctx: MailboxContext,
  pool: WorkPool,
  entries: readonly PreparedEntry[],
  tally: EntryTally,
  locks: UserLocks,
  afterEntry: () => void,
): void {
  const now = ctx.clock.nowMs();
  const open = new Map<string, { entries: PreparedEntry[]; bytes: number }>();
  const flush = (batch: readonly PreparedEntry[]): void => pool.push(() => writeFastBatch(ctx, pool, batch, tally, locks, afterEntry), batch.length);
  for (const p of entries) {
    if (!covered(ctx, p, now)) {
      pool.push(() => locks.run(p.userKey, () => appendOne(ctx, pool, p, tally, afterEntry)));
      continue;
    }
    const replicas = replicaSetOf(ctx.cql.client, ctx.cql.keyspace, p.tenant, p.user);
    const group = open.get(replicas);
    if (group !== undefined && group.entries.length < FAST_BATCH_ENTRIES && group.bytes + p.blob.length <= FAST_BATCH_BYTES) {
      group.entries.push(p);
      group.bytes += p.blob.length;
      continue;
    }
    if (group !== undefined) flush(group.entries);
    open.set(replicas, { entries: [p], bytes: p.blob.length });
  }
  for (const group of open.values()) flush(group.entries);
}

/** One entry through `appendEntry`, counted. */
async function appendOne(ctx: MailboxContext, pool: WorkPool, p: PreparedEntry, tally: EntryTally, afterEntry: () => void): Promise<void> {
  if (pool.failed) return;
  if ((await appendEntry(ctx, p)) === 'written') tally.written += 1;
  else tally.expired += 1;
  afterEntry();
}

/**
 * Writes a fast-path batch. The registration was checked when the batch was formed; an entry that
 * is no longer covered when the batch runs (its day came within the margin of its expiry while it
 * waited) leaves the batch and takes `appendEntry` after it.
 */
async function writeFastBatch(
  ctx: MailboxContext,
  pool: WorkPool,
  batch: readonly PreparedEntry[],
  tally: EntryTally,
  locks: UserLocks,
  afterEntry: () => void,
): Promise<void> {
  if (pool.failed) return;
  const now = ctx.clock.nowMs();
  const still = batch.filter((p) => covered(ctx, p, now));
  if (still.length > 0) {
    await ctx.cql.batch(still.flatMap((p) => fastParts(ctx, p, now)));
    tally.written += still.length;
    for (let i = 0; i < still.length; i++) afterEntry();
  }
  for (const p of batch) if (!still.includes(p)) await locks.run(p.userKey, () => appendOne(ctx, pool, p, tally, afterEntry));
}

/** `appendBatch`: every entry through the store's bounded pool, users in parallel. */
export async function writeEntries(ctx: MailboxContext, entries: readonly PreparedEntry[]): Promise<AppendReport> {
  const pool = new WorkPool(ctx.cql.limit.limit);
  const tally: EntryTally = { written: 0, expired: 0 };
  queueEntries(ctx, pool, entries, tally, new UserLocks(entries.map((p) => p.userKey)), () => undefined);
  await pool.done();
  return { written: tally.written, expired: tally.expired };
}
