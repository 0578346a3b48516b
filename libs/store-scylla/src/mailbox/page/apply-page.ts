import { entriesOfDispatch, planPage } from '@qim/store-core';
import type { DispatchOutcome, DispatchPage, Id128, PageReport } from '@qim/store-core';
import { WorkPool } from '../cql/work-pool';
import type { MailboxContext } from '../context/mailbox-context';
import { prepareEntries, queueEntries } from '../retention/append-entries';
import type { EntryTally, PreparedEntry } from '../retention/append-entries';
import { UserLocks } from '../retention/user-locks';
import type { CanonicalSight, Sight } from './dispatch-index';
import { SIGHT_GROUP, readSights, sightsOf, writeSights } from './dispatch-index';
import { readFrontier, writeFrontier } from './frontier';
import { SimulatedCrashError } from '../context/page-faults';
import { byOffset, resolveRepeats, resolveSight } from './page-outcomes';

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

/**
 * `applyPage` (ADR-0022 §3): frontier read → `planPage` (shape, shard, gap, behind) → every
 * candidate's entries prepared and checked before any write → per group of `SIGHT_GROUP` records,
 * their dispatch-index sights written (one batch) and read back (one read), and each applied
 * record's entries queued at once — no barrier between the steps of different records, never more
 * than the store's in-flight bound of statements → once every entry is acknowledged, one frontier
 * write stamped `toOffset + 1`. No LWT unless a recipient's ledger must change. Every write is an
 * idempotent upsert, so a crash anywhere followed by a re-application (by this or a zombie worker)
 * converges.
 */
export async function applyPage(ctx: MailboxContext, page: DispatchPage): Promise<PageReport> {
  const frontier = await readFrontier(ctx.cql, ctx.shardEpoch);
  const plan = planPage(page, ctx.shardEpoch, frontier);
  if (plan.kind === 'behind') return { frontier: frontier ?? page.toOffset, wrote: false, outcomes: [], entriesWritten: 0, entriesExpired: 0 };
  const { epoch } = ctx.shardEpoch;
  const prepared = new Map<bigint, PreparedEntry[]>(plan.candidates.map((c) => [c.offset, prepareEntries(ctx, entriesOfDispatch(c.record, epoch, c.offset))]));
  const sights = sightsOf(ctx, plan.candidates);
  const crash = crashCounter(ctx);
  const pool = new WorkPool(ctx.cql.limit.limit);
  const locks = new UserLocks([...prepared.values()].flatMap((list) => list.map((p) => p.userKey)));
  const tally: EntryTally = { written: 0, expired: 0 };
  const outcomes: DispatchOutcome[] = [];
  const canonicalOf = new Map<Id128, CanonicalSight>();
  const settle = (group: readonly Sight[], index: ReadonlyMap<Id128, CanonicalSight>): void => {
    const now = ctx.clock.nowMs();
    for (const s of group) {
      const { outcome, canonical } = resolveSight(s, index.get(s.candidate.record.dispatchId), now, ctx.clockSkewAllowanceMs);
      outcomes.push(outcome);
      canonicalOf.set(outcome.dispatchId, canonical);
      if (outcome.outcome === 'applied') {
        crash.before();
        queueEntries(ctx, pool, prepared.get(s.candidate.offset) ?? [], tally, locks, crash.after);
      }
    }
  };
  for (let i = 0; i < sights.length; i += SIGHT_GROUP) {
    const group = sights.slice(i, i + SIGHT_GROUP);
    const remembered = group.filter((s) => s.ttl > 0);
    if (remembered.length === 0) {
      pool.push(async () => settle(group, new Map()));
      continue;
    }
    pool.push(async () => {
      await writeSights(ctx, remembered);
      settle(group, await readSights(ctx, remembered.map((r) => r.candidate.record.dispatchId)));
    });
  }
  await pool.done();
  if (ctx.faults?.crashBeforeFrontier) throw new SimulatedCrashError('simulated crash before the frontier write');
  await ctx.faults?.beforeFrontierWrite?.();
  await writeFrontier(ctx.cql, ctx.shardEpoch, page.toOffset);
  const after = frontier !== null && frontier > page.toOffset ? frontier : page.toOffset;
  return { frontier: after, wrote: true, outcomes: byOffset([...outcomes, ...resolveRepeats(plan.repeats, canonicalOf)]), entriesWritten: tally.written, entriesExpired: tally.expired };
}
