import { applyAppend } from '@qim/store-core';
import type { RetentionMeta } from '@qim/store-core';
import type { UserKeys } from '../keys/redis-keys';
import type { ScriptArg } from '../redis/redis-io';
import { userAppendArgs } from './mailbox-script-args';
import type { ReleasedDay } from './mailbox-script-args';
import { NO_KNOWN_META } from './meta-cache';
import type { KnownMeta } from './meta-cache';
import type { PreparedEntry } from './prepared-entry';
import { encodeRetentionMeta } from './stored-retention-meta';

/** One user's arguments of its bucket's append call, and what they mean when they succeed under the compare-and-set. */
export interface UserAppendCall {
  /** The user's bucket (its append call's tag). */
  readonly bucket: number;
  /** `userAppendArgs` of the user. */
  readonly args: readonly ScriptArg[];
  /** Entries written live / recorded as expired replays when the compare-and-set path runs. */
  readonly written: number;
  readonly expired: number;
  /** The meta stored after a compare-and-set success (the cache's next value). */
  readonly after: KnownMeta;
  /** Per entry, whether the compare-and-set path writes it (false: an expired replay); null = fast path, all. */
  readonly live: readonly boolean[] | null;
}

/** What to do for one user: call the append script, or first inspect expired ledger items. */
export type UserAppendPlan = { readonly kind: 'inspect' } | ({ readonly kind: 'call' } & UserAppendCall);

/**
 * How far (ms) beyond the clock-skew allowance an entry and its day's ledger item must stay live for
 * any fast path (the append script's, the plan's, the plain path's): the Scylla store's margin. A
 * fast path does not touch the meta, so it must never race the inspection (consumption) of its own
 * day by a process whose clock runs ahead by up to the skew (ADR-0022 §5).
 */
export const FAST_PATH_SAFETY_MS = 3_600_000n;

/** The instant every fast-path entry and ledger item must outlive: `now + skew + FAST_PATH_SAFETY_MS`. */
export function fastPathHorizon(now: bigint, clockSkewAllowanceMs: bigint): bigint {
  return now + clockSkewAllowanceMs + FAST_PATH_SAFETY_MS;
}

export interface UserAppendContext {
  readonly keys: UserKeys;
  readonly now: bigint;
  /** `fastPathHorizon(now, skew)`: the fast path is planned only for entries living past it. */
  readonly horizon: bigint;
  readonly graceMs: bigint;
}

/**
 * True when the user's ledger need not change for any of these entries (ADR-0022 §5): every entry
 * lives past `horizon` on a day whose ledger item lives past it too and expires no later than the
 * entry (so `applyAppend` would only raise that item's max seq, which the bucket proof now carries).
 * Callers pass a horizon with the skew and safety margin (`fastPathHorizon`), never the bare now.
 */
export function fastPathHolds(meta: RetentionMeta, group: readonly PreparedEntry[], horizon: bigint): boolean {
  return group.every((e) => {
    if (e.expiresAt <= horizon) return false;
    const item = meta.ledger.find((i) => i.day === e.day);
    return item !== undefined && item.expiresAt > horizon && item.expiresAt <= e.expiresAt;
  });
}

/**
 * Plans one user's append from the meta this store believes is stored (`known`; undefined = not
 * known, planned as "no meta yet"). Pure. The script itself takes the fast path whenever it holds
 * on the real meta, so a wrong belief costs a lost compare-and-set, never a wrong write:
 * - a known meta with an expired ledger item → `inspect` first (its consumption must merge the bucket
 *   proof's max seq, store-core `applyInspect`, not the item's);
 * - the fast path holds on the known meta, up to the horizon → fast mode, no meta planned;
 * - otherwise store-core `applyAppend` per entry (the same decisions as Memory) → compare-and-set
 *   mode with the new meta (when it changes), the ledger days to keep and the proof days to release.
 */
export function planUserAppend(ctx: UserAppendContext, group: readonly PreparedEntry[], known: KnownMeta | undefined): UserAppendPlan {
  const base = known ?? NO_KNOWN_META;
  const initial = base.meta;
  if (initial !== null && initial.ledger.some((i) => i.expiresAt <= ctx.now)) return { kind: 'inspect' };
  if (known !== undefined && initial !== null && fastPathHolds(initial, group, ctx.horizon)) {
    const args = userAppendArgs(ctx.keys, { entries: group, live: null, cas: null });
    return { kind: 'call', bucket: ctx.keys.bucket, args, written: group.length, expired: 0, after: base, live: null };
  }
  let meta = initial;
  let changed = false;
  const live: boolean[] = [];
  for (const e of group) {
    const out = applyAppend(meta, { day: e.day, seq: e.seq, expiresAt: e.expiresAt }, ctx.now);
    if (out.changed) {
      meta = out.meta;
      changed = true;
    }
    live.push(!out.expiredReplay);
  }
  const liveDays = new Set((meta?.ledger ?? []).map((i) => i.day));
  const released = new Map<number, bigint>();
  for (const item of initial?.ledger ?? []) if (!liveDays.has(item.day)) released.set(item.day, item.expiresAt);
  group.forEach((e, i) => {
    if (!live[i] && !liveDays.has(e.day) && !released.has(e.day)) released.set(e.day, e.expiresAt);
  });
  const next = changed && meta !== null ? encodeRetentionMeta(meta) : null;
  const cas = {
    expected: base.raw,
    next,
    liveDays: [...liveDays],
    released: [...released].map(([day, expiresAt]): ReleasedDay => ({ day, expiresAt })),
    graceMs: ctx.graceMs,
  };
  const args = userAppendArgs(ctx.keys, { entries: group, live, cas });
  const written = live.filter((l) => l).length;
  return { kind: 'call', bucket: ctx.keys.bucket, args, written, expired: group.length - written, after: next === null ? base : { raw: next, meta }, live };
}
