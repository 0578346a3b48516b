import type { LedgerItem } from '../codecs/active-ledger';
import type { AppendFact } from './retention-meta';

/**
 * A retention change between writers (issue 27, defect 4: a rolling restart that lowers
 * `QIM_MAILBOX_RETENTION_DAYS`). `registerDay` keeps a day's *earlier* expiry, so a writer with the
 * shorter retention brings a shared day's expiry forward. A process with the longer retention may
 * still plan from the later expiry it learnt (Scylla's registered days, Redis's cached meta behind
 * its plain path) and write an entry without touching the meta: if the day is consumed meanwhile,
 * that entry outlives every ledger item and, once it expires, leaves a hole no cursor sees. Two
 * bounds close it together:
 *
 * - a learnt ledger is trusted for the no-meta paths at most `LEARNT_LEDGER_TRUST_MS` after it was
 *   learnt (then the meta is read again);
 * - an entry that would bring its day's expiry forward to within `EXPIRY_LOWERING_FLOOR_MS` of now
 *   is an expired replay instead (its seq merges into the gap: a forced resync of cursors below it,
 *   never a silent hole), so every lowered expiry lies beyond the trust, the fast-path margin (one
 *   hour) and the clock skew (at most a minute each way) of every process that learnt the old one.
 */

/** How long (ms) a process may skip the meta on the strength of a ledger it learnt: 10 minutes. */
export const LEARNT_LEDGER_TRUST_MS = 600_000n;

/**
 * How far ahead (ms) a lowered day expiry must lie: two hours, above the learnt-ledger trust
 * (10 min) + the fast-path margin (1 h) + three clock skews (3 × 60 s, the configuration's maximum).
 */
export const EXPIRY_LOWERING_FLOOR_MS = 7_200_000n;

/**
 * True when registering `fact` would lower its day's live item to an expiry within
 * `EXPIRY_LOWERING_FLOOR_MS` of `nowMs`: the entry must then be recorded as an expired replay.
 * `live` is the ledger after consuming expired items.
 */
export function lowersExpiryTooSoon(live: readonly LedgerItem[], fact: AppendFact, nowMs: bigint): boolean {
  const item = live.find((i) => i.day === fact.day);
  return item !== undefined && fact.expiresAt < item.expiresAt && fact.expiresAt <= nowMs + EXPIRY_LOWERING_FLOOR_MS;
}

/** True while a ledger learnt at `learntAtMs` may still be trusted at `nowMs` (`LEARNT_LEDGER_TRUST_MS`). */
export function learntLedgerTrusted(learntAtMs: bigint, nowMs: bigint): boolean {
  return nowMs >= learntAtMs && nowMs < learntAtMs + LEARNT_LEDGER_TRUST_MS;
}
