import type { types } from 'cassandra-driver';
import { CorruptEntryError, gcRemainingTtlSeconds, mustRewriteWithTtl } from '@qim/store-core';
import type { NamedStatement } from '../cql/named-statement';
import { maxWritetime } from '../cql/rows';
import type { MailboxContext } from '../mailbox-context';
import type { GcFactKind } from './gc-steps';

/** How to reschedule one bookkeeping row: lock it, read its write times, rewrite it whole. */
export interface FactRewrite {
  readonly kind: GcFactKind;
  readonly dispatchId: string;
  /** The TTL the row carried when read (s); positive → already scheduled, never renewed. */
  readonly ttl: number | null;
  /** The LWT lock on the original fact (it re-asserts what was read and, for children, records the deadline). */
  readonly lock: { readonly statement: NamedStatement; readonly params: readonly unknown[] };
  /**
   * True when an applied lock changes the row (a child's `gc_deadline` goes from null to the deadline);
   * false when it only re-asserts current values (progress phase 2, index deadline) and so is no new
   * durable step — a resumed pass repeats it harmlessly.
   */
  readonly lockRecordsDeadline: boolean;
  /**
   * Judges a lock that did not apply from the current row the server returned: 'locked' when the row
   * already carries this deadline (a resumed pass), 'gone' when it no longer exists (expired).
   * Anything else → `CorruptEntryError`.
   */
  readonly lockLost: (current: types.Row | null) => 'locked' | 'gone';
  /** Selects `WRITETIME(…)` of every regular column of the row. */
  readonly writetime: { readonly statement: NamedStatement; readonly params: readonly unknown[] };
  /** The whole-row `INSERT … USING TTL ? AND TIMESTAMP ?`; receives `[...values, ttl, timestamp]`. */
  readonly rewrite: { readonly statement: NamedStatement; readonly values: readonly unknown[] };
}

/**
 * `now` as the server counts a TTL: from its current whole second. Feeding that to
 * `gcRemainingTtlSeconds` makes the row end at `floor(now) + ceil((deadline − floor(now)) / s) ≥
 * deadline`, so a rescheduled row never vanishes before the fixed deadline (at most 1 s after it).
 */
function wholeSecond(nowMs: bigint): bigint {
  return (nowMs / 1000n) * 1000n;
}

/** Outcome of one fact: rewritten now, already scheduled earlier, or already gone. */
export type FactOutcome = 'rewritten' | 'scheduled' | 'gone';

/**
 * Reschedules one row to die at `deadline`: skip when it already has a positive TTL (never renewed);
 * LWT lock (finishes any in-flight Paxos round on the row, so no older proposal can land after the
 * rewrite); then ONE whole-row `INSERT … USING TTL remaining AND TIMESTAMP t` with
 * `remaining = gcRemainingTtlSeconds(deadline, now)` (now in whole server seconds) and `t` above every cell's write time, so the row
 * marker and every regular cell carry the TTL. Never `UPDATE … USING TTL` (it would leave the INSERTed
 * row marker alive: a primary-key-only ghost row).
 */
export async function rewriteFact(ctx: MailboxContext, deadline: bigint, f: FactRewrite): Promise<FactOutcome> {
  if (!mustRewriteWithTtl(f.ttl)) return 'scheduled';
  const lock = await ctx.cql.lwt(f.lock.statement, f.lock.params);
  if (!lock.applied && f.lockLost(lock.current) === 'gone') return 'gone';
  if (lock.applied && f.lockRecordsDeadline) await ctx.gcStepHook?.({ step: 'lock', kind: f.kind, dispatchId: f.dispatchId });
  const written = maxWritetime(await ctx.cql.one(f.writetime.statement, f.writetime.params));
  if (written === 0n) return 'gone';
  const nowUs = ctx.clock.nowMs() * 1000n;
  const timestamp = nowUs > written ? nowUs : written + 1n;
  const ttl = gcRemainingTtlSeconds(deadline, wholeSecond(ctx.clock.nowMs()));
  await ctx.cql.run(f.rewrite.statement, [...f.rewrite.values, ttl, timestamp]);
  await ctx.gcStepHook?.({ step: 'rewrite', kind: f.kind, dispatchId: f.dispatchId });
  return 'rewritten';
}

/**
 * The usual `lockLost` of a child row locked by `IF <fact> = ? AND gc_deadline = null`: no row (or a
 * null fact column) → gone; the same deadline already recorded → locked; otherwise damage.
 */
export function childLockLost(kind: GcFactKind, factColumn: string, deadline: bigint): (current: types.Row | null) => 'locked' | 'gone' {
  return (current) => {
    const get = (c: string): unknown => (current === null ? null : (current as unknown as Record<string, unknown>)[c]);
    if (get(factColumn) === null || get(factColumn) === undefined) return 'gone';
    if (get('gc_deadline') === deadline) return 'locked';
    throw new CorruptEntryError(`${kind} row lock refused: fact or deadline differ (deadline ${String(get('gc_deadline'))}, expected ${deadline})`);
  };
}
