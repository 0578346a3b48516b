import { InvalidInputError, learntLedgerTrusted } from '@qim/store-core';
import type { RetentionMeta } from '@qim/store-core';

/** Default number of users whose registered days one store remembers. */
export const DEFAULT_REGISTERED_DAYS_USERS = 100_000;

/**
 * How far (ms) beyond the clock-skew allowance an entry's day must stay live for the fast path:
 * an append that skips the meta LWT can never race the inspection of its own day (ADR-0022 §5).
 */
export const FAST_PATH_SAFETY_MS = 3_600_000n;

/** What is known of one user: its ledger days' expiries and when (store clock ms) they were learnt. */
interface Learnt {
  readonly days: ReadonlyMap<number, bigint>;
  readonly at: bigint;
}

/**
 * A bounded, least-recently-used memory `user → {day → ledger item expiry}` of the days registered
 * in each user's active ledger, learnt only from this store's own meta reads (LOCAL_QUORUM, so only
 * committed Paxos values) and meta LWTs. A registered day leaves a ledger only by being consumed,
 * which needs its expiry to have passed; the fast path checks the expiry with a margin and never
 * trusts a day close to it. An expiry may also move *earlier* (a writer with a shorter retention,
 * issue 27): what was learnt is trusted only `LEARNT_LEDGER_TRUST_MS` (then the meta is read again),
 * and store-core never lowers an expiry to within `EXPIRY_LOWERING_FLOOR_MS` of now, beyond that
 * trust plus the margin — so a remembered expiry is never relied on past the real one.
 */
export class RegisteredDays {
  private readonly users = new Map<string, Learnt>();

  constructor(readonly capacity: number = DEFAULT_REGISTERED_DAYS_USERS) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new InvalidInputError(`registered-days cache size must be a positive integer: ${capacity}`);
  }

  /** Replaces what is known of `user` with the live ledger of `meta` (null: the user has no meta), read or written at `nowMs`. */
  learn(user: string, meta: RetentionMeta | null, nowMs: bigint): void {
    this.users.delete(user);
    this.users.set(user, { days: new Map((meta?.ledger ?? []).map((i) => [i.day, i.expiresAt])), at: nowMs });
    if (this.users.size > this.capacity) {
      const oldest = this.users.keys().next();
      if (!oldest.done) this.users.delete(oldest.value);
    }
  }

  /** Whether anything is known of `user` (a miss costs one meta read). */
  knows(user: string): boolean {
    return this.users.has(user);
  }

  /**
   * True when an entry of `day` expiring at `entryExpiresAt` needs no meta write: its day is
   * registered with an expiry no later than the entry's (else the ledger must lower it), that
   * expiry is more than `marginMs` after `nowMs`, and it was learnt less than
   * `LEARNT_LEDGER_TRUST_MS` ago.
   */
  covers(user: string, day: number, entryExpiresAt: bigint, nowMs: bigint, marginMs: bigint): boolean {
    const learnt = this.users.get(user);
    if (learnt === undefined || !learntLedgerTrusted(learnt.at, nowMs)) return false;
    this.users.delete(user);
    this.users.set(user, learnt);
    const itemExpiresAt = learnt.days.get(day);
    return itemExpiresAt !== undefined && itemExpiresAt <= entryExpiresAt && nowMs + marginMs < itemExpiresAt;
  }

  /** Number of users remembered (≤ capacity). */
  get size(): number {
    return this.users.size;
  }
}
