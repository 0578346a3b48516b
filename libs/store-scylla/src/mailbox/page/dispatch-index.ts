import { CorruptEntryError, InvariantViolationError, dispatchDedupeExpiry, id128FromBytes, id128ToBytes } from '@qim/store-core';
import type { Id128, IndexedDispatch, PageCandidate } from '@qim/store-core';
import type { BatchPart } from '../../session/cql-runner';
import type { MailboxContext } from '../context/mailbox-context';
import { reqBlob, reqU64 } from '../cql/rows';
import { entryTtlSeconds } from '../retention/entry-ttl';
import { DISPATCH_INDEX } from '../tables/dispatch-index-table';

/** Write stamp base of the dispatch index: `2^62 − offset`, so the lowest offset wins. */
export const INDEX_STAMP_BASE = 1n << 62n;
/** Records whose sights are written in one batch, or read in one `IN` query. */
export const SIGHT_GROUP = 8;

/** A candidate of a page with its duplicate-detection memory. */
export interface Sight {
  readonly candidate: PageCandidate;
  /** Absolute end (ms) of the dispatch id's memory: `createdAt + dispatchDedupeMs`. */
  readonly dedupeExpiry: bigint;
  /** TTL (s) that ends the index row at that second; ≤ 0: the window is over, nothing is remembered. */
  readonly ttl: number;
}

/** Computes every candidate's memory before any write (an expiry more than 20 years away → `InvalidInputError`). */
export function sightsOf(ctx: MailboxContext, candidates: readonly PageCandidate[]): Sight[] {
  const now = ctx.clock.nowMs();
  return candidates.map((candidate) => {
    const dedupeExpiry = dispatchDedupeExpiry(candidate.record.createdAt, ctx.gc.dispatchDedupeMs);
    return { candidate, dedupeExpiry, ttl: entryTtlSeconds(dedupeExpiry, now) };
  });
}

/** The upsert of one sight: the whole row, `USING TTL` to its window's end `AND TIMESTAMP 2^62 − offset`. */
function sightPart(ctx: MailboxContext, { candidate: c, ttl }: Sight): BatchPart {
  const { shard, epoch } = ctx.shardEpoch;
  return { statement: DISPATCH_INDEX.upsert, params: [shard, epoch, id128ToBytes(c.record.dispatchId), c.offset, c.digest, ttl, INDEX_STAMP_BASE - c.offset] };
}

/**
 * Writes the sights of a group as one unlogged batch (one request; each row is its own partition,
 * so the group stays below Cassandra's 10-partition warning for unlogged batches).
 */
export async function writeSights(ctx: MailboxContext, sights: readonly Sight[]): Promise<void> {
  if (sights.length > SIGHT_GROUP) throw new InvariantViolationError(`${sights.length} sights in one batch (max ${SIGHT_GROUP})`);
  await ctx.cql.batch(sights.map((s) => sightPart(ctx, s)));
}

/** The canonical sights of `ids` (one `IN` query): absent ids have no live row. */
async function readGroup(ctx: MailboxContext, ids: readonly Id128[]): Promise<Map<Id128, IndexedDispatch>> {
  const { shard, epoch } = ctx.shardEpoch;
  const found = new Map<Id128, IndexedDispatch>();
  for (const row of await ctx.cql.rows(DISPATCH_INDEX.selectMany, [shard, epoch, ids.map(id128ToBytes)])) {
    const id = id128FromBytes(reqBlob(row, 'dispatch_id', 'dispatch index'));
    const digest = reqBlob(row, 'digest', 'dispatch index');
    if (digest.length !== 32) throw new CorruptEntryError(`dispatch index of ${id}: digest of ${digest.length} bytes`);
    found.set(id, { offset: reqU64(row, 'canonical_offset', 'dispatch index'), digest });
  }
  return found;
}

/**
 * The canonical sights the index holds for `ids`, read in groups of `SIGHT_GROUP` ids at once (all
 * groups concurrently, within the store's in-flight bound). A read sent after a frontier `F` was
 * learnt sees every sight of a record at or below `F`: each was acknowledged before `F` was written.
 */
export async function readSights(ctx: MailboxContext, ids: readonly Id128[]): Promise<Map<Id128, IndexedDispatch>> {
  const groups: Id128[][] = [];
  for (let i = 0; i < ids.length; i += SIGHT_GROUP) groups.push(ids.slice(i, i + SIGHT_GROUP));
  return new Map((await Promise.all(groups.map((g) => readGroup(ctx, g)))).flatMap((m) => [...m]));
}
