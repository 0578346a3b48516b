import { InvalidInputError, entriesOfDispatch, planPage, resolvePage } from '@qim/store-core';
import type { ApplyPlan, DispatchPage, Id128, PageReport } from '@qim/store-core';
import { WorkPool } from '../cql/work-pool';
import type { MailboxContext } from '../context/mailbox-context';
import { prepareEntries, queueEntries } from '../retention/append-entries';
import type { EntryTally, PreparedEntry } from '../retention/append-entries';
import { UserLocks } from '../retention/user-locks';
import { SIGHT_GROUP, readSights, sightsOf, writeSights } from './dispatch-index';
import type { Sight } from './dispatch-index';
import { readFrontier, writeFrontier } from './frontier';
import { indexReadCovers } from '../context/known-frontier';
import { SimulatedCrashError } from '../context/scylla-mailbox-faults';

/** Throws the simulated crash once `crashAfterEntries` entries are acknowledged (none configured: never). */
function crashCounter(ctx: MailboxContext): { before(): void; after(): void } {
  const limit = ctx.faults?.crashAfterEntries;
  let acknowledged = 0;
  const check = (): void => {
    if (limit !== undefined && acknowledged >= limit) throw new SimulatedCrashError(`simulated crash after ${acknowledged} entry writes`);
  };
  return {
    before: check,
    after: () => {
      acknowledged += 1;
      check();
    },
  };
}

/** A page's candidates with their entries prepared and their dispatch-index memory, before any write. */
interface PreparedPage {
  readonly plan: ApplyPlan;
  readonly prepared: ReadonlyMap<bigint, PreparedEntry[]>;
  readonly sights: readonly Sight[];
}

function preparePage(ctx: MailboxContext, plan: ApplyPlan): PreparedPage {
  const { epoch } = ctx.shardEpoch;
  const prepared = new Map(plan.candidates.map((c) => [c.offset, prepareEntries(ctx, entriesOfDispatch(c.record, epoch, c.offset))]));
  return { plan, prepared, sights: sightsOf(ctx, plan.candidates) };
}

/**
 * The page prepared before its frontier read, when the store already knows a stored frontier `K`
 * at or above `fromOffset − 1` (it applied the previous page): no gap is then possible, and the plan
 * against `K` names the same candidates as the plan against the frontier read (candidates do not
 * depend on the frontier), so the dispatch index can be read beside the frontier. Null otherwise — the
 * first page of a store, or a page this check already refuses (it is refused again after the frontier
 * read, so a refusal still costs only that read).
 */
function prepareEarly(ctx: MailboxContext, page: DispatchPage, known: bigint | null): PreparedPage | null {
  if (known === null || page.fromOffset > known + 1n || page.toOffset <= known) return null;
  try {
    const plan = planPage(page, ctx.shardEpoch, known);
    return plan.kind === 'apply' ? preparePage(ctx, plan) : null;
  } catch (e) {
    if (e instanceof InvalidInputError) return null;
    throw e;
  }
}

const dispatchIds = (sights: readonly Sight[]): Id128[] => sights.filter((s) => s.ttl > 0).map((s) => s.candidate.record.dispatchId);

/**
 * `applyPage` (ADR-0022 §3): frontier read (with the page's dispatch-index read beside it once the
 * store knows a stored frontier, see `prepareEarly`) → `planPage` (shape, shard, gap, behind) →
 * every candidate's entries prepared and checked before any write → store-core's `resolvePage`
 * decides each candidate from the index as read (a lower canonical offset → duplicate/conflict) →
 * the page's sights (one batch per `SIGHT_GROUP` records) and the applied records' entries, all
 * within the store's in-flight bound → once every one is acknowledged, one frontier write stamped
 * `toOffset + 1`. No LWT unless a recipient's ledger must change. Every write is an idempotent
 * upsert, so a crash anywhere followed by a re-application (by this or a zombie worker) converges.
 *
 * Why the index may be read before the page's own sights are written: a candidate's lower sight
 * lies at or below the frontier read (the page starts at most one above it; in-page repeats are
 * resolved by `planPage`), and every sight at or below a stored frontier was acknowledged before
 * that frontier was written — before the read, or else the read is sent again after the frontier.
 */
export async function applyPage(ctx: MailboxContext, page: DispatchPage): Promise<PageReport> {
  const known = ctx.knownFrontier.value;
  const early = prepareEarly(ctx, page, known);
  const earlyRead = early === null ? null : readSights(ctx, dispatchIds(early.sights));
  // Its failure surfaces where it is awaited; unawaited (the page turned out behind, or read again), it is moot.
  earlyRead?.catch(() => undefined);
  const frontier = await readFrontier(ctx.cql, ctx.shardEpoch);
  ctx.knownFrontier.raise(frontier);
  // With an early plan its records are validated and planned already: only the range is checked
  // against the frontier read (the digests of a page are the costliest part of planning it).
  const checked = planPage(early === null ? page : { ...page, records: [] }, ctx.shardEpoch, frontier);
  if (checked.kind === 'behind') return { frontier: frontier ?? page.toOffset, wrote: false, outcomes: [], entriesWritten: 0, entriesExpired: 0 };
  const { plan, prepared, sights } = early ?? preparePage(ctx, checked);
  const remembered = sights.filter((s) => s.ttl > 0);
  const index = earlyRead !== null && indexReadCovers(known, frontier) ? await earlyRead : await readSights(ctx, dispatchIds(sights));
  // A candidate whose window is over (ttl ≤ 0) has no memory: applied at its own offset whatever a row says.
  const indexed = new Map(sights.map((s) => [s.candidate.record.dispatchId, s.ttl > 0 ? (index.get(s.candidate.record.dispatchId) ?? null) : null]));
  const { outcomes, applied } = resolvePage(plan, indexed);
  const entries = applied.flatMap((c) => prepared.get(c.offset) ?? []);
  const crash = crashCounter(ctx);
  if (entries.length > 0) crash.before();
  const pool = new WorkPool(ctx.cql.limit.limit);
  for (let i = 0; i < remembered.length; i += SIGHT_GROUP) {
    const group = remembered.slice(i, i + SIGHT_GROUP);
    pool.push(() => writeSights(ctx, group));
  }
  const tally: EntryTally = { written: 0, expired: 0 };
  queueEntries(ctx, pool, entries, tally, new UserLocks(entries.map((p) => p.userKey)), crash.after);
  await pool.done();
  if (ctx.faults?.crashBeforeFrontier) throw new SimulatedCrashError('simulated crash before the frontier write');
  await ctx.faults?.beforeFrontierWrite?.();
  await writeFrontier(ctx.cql, ctx.shardEpoch, page.toOffset);
  ctx.knownFrontier.raise(page.toOffset);
  const after = frontier !== null && frontier > page.toOffset ? frontier : page.toOffset;
  return { frontier: after, wrote: true, outcomes: [...outcomes], entriesWritten: tally.written, entriesExpired: tally.expired };
}
