import type { RetentionMeta } from '@qim/store-core';
import type { UserKeys } from '../keys/redis-keys';
import type { ScriptArg } from '../redis/redis-io';
import type { PreparedEntry } from './prepared-entry';
import { fastPathHolds } from './user-append-plan';

/**
 * How far from expiry (ms) an entry and its ledger item must be for the plain path: one hour, the
 * margin of the Scylla fast path. The plain path relies on the cached meta instead of reading it,
 * so it must not race the consumption of the item by another process, which may run ahead by the
 * clock skew (at most 60 s by configuration) and be executed while our commands are in flight.
 */
export const PLAIN_PATH_MARGIN_MS = 3_600_000n;

/** seq → the bucket proof's score: the seq's offset part (seq − epoch·2^47), as the append script computes it. */
const OFFSET_MASK = (1n << 47n) - 1n;

/** What a day index and its bucket proof must already hold for an entry to take the plain path. */
function warmKeyOf(e: PreparedEntry): string {
  // expiry (16 hex, the proof member's) + physical expiry + day (`tail`)
  return `${e.head.slice(16)}${e.tail}`;
}

/**
 * The (day, expiry, physical expiry) of each user whose entry this process wrote live through the
 * append script in `add` mode, over the current connection (ADR-0022 §5, Redis plain path). Once
 * one was written, in that connection's lifetime: the day's bucket proof holds the member
 * `<epoch>:<expiry>` (never removed while a ledger item refers to the day: the proof has no expiry
 * then), and the day index exists with a physical expiry at or after this one (set `NX`, raised
 * `GT`, only ever emptied by an atomic 'replace' that sets it again). A lost connection may mean a
 * restarted server that lost recent writes: when the client's lost-connection count
 * (`connectionGeneration`) has moved, everything is forgotten and every user goes through the
 * script again. Bounded: the oldest user is dropped when full.
 */
export class WarmDays {
  private readonly users = new Map<string, Set<string>>();
  private seen: number;

  /** @param connection the client's lost-connection count (`connectionGeneration`): when it moves, everything is forgotten. */
  constructor(
    private readonly capacity: number,
    private readonly connection: { readonly value: number } = { value: 0 },
  ) {
    this.seen = connection.value;
  }

  /** Forgets everything when the connection was lost since the last look. */
  private current(): void {
    if (this.connection.value !== this.seen) {
      this.users.clear();
      this.seen = this.connection.value;
    }
  }

  /** Remembers the days of `entries` (all of one user, all written live). */
  learn(user: string, entries: readonly PreparedEntry[]): void {
    this.current();
    let set = this.users.get(user);
    if (set === undefined) {
      set = new Set();
      this.users.set(user, set);
      if (this.users.size > this.capacity) {
        const oldest = this.users.keys().next();
        if (oldest.done !== true) this.users.delete(oldest.value);
      }
    }
    for (const e of entries) set.add(warmKeyOf(e));
  }

  forget(user: string): void {
    this.users.delete(user);
  }

  /**
   * True when `group` (one user's entries) may skip the script: every (day, expiry, physical) is
   * warm, and on the meta this store last saw (`meta`, a meta that had no expired item at `now`)
   * the script's fast path holds with `PLAIN_PATH_MARGIN_MS` to spare — every entry and its day's
   * ledger item live past `now + margin`, the item expiring no later than the entry. Then the
   * script would write exactly the plain commands, and no other process can have changed the
   * user's ledger item of those days (an item leaves the ledger only once expired).
   */
  holds(meta: RetentionMeta, group: readonly PreparedEntry[], now: bigint): boolean {
    this.current();
    const set = this.users.get(group[0]!.user);
    if (set === undefined) return false;
    for (const e of group) if (!set.has(warmKeyOf(e))) return false;
    return fastPathHolds(meta, group, now + PLAIN_PATH_MARGIN_MS);
  }
}

const generations = new WeakMap<object, { value: number }>();

/**
 * How many times `redis` lost its connection: one `close` listener per client, however many stores
 * (one per shard) share it. A lost connection may be a restarted server that lost recent writes.
 */
export function connectionGeneration(redis: { on(event: 'close', listener: () => void): unknown }): { readonly value: number } {
  let gen = generations.get(redis);
  if (gen === undefined) {
    const counter = { value: 0 };
    redis.on('close', () => {
      counter.value += 1;
    });
    generations.set(redis, counter);
    gen = counter;
  }
  return gen;
}

/** One plain command of a user and, for a bucket proof's `ZADD … GT`, the day index whose expiry it vouches for. */
export interface PlainCommand {
  readonly command: readonly [string, ...ScriptArg[]];
  /** tenant + user (the `PreparedEntry.user` form). */
  readonly user: string;
  /** Set on a proof's ZADD: `[day index, physical expiry ms]`, to set if the member turns out new. */
  readonly dayExpiry: readonly [string, string] | null;
}

/**
 * The script's fast path for one user as plain commands: per (day, expiry) one `ZADD <proof> GT
 * <score> <epoch>:<expiry>` at the group's highest seq, then per day one `ZADD <day index> 0
 * <member> …` (the members as given: `add` semantics, other bytes under a seq are refused by the
 * reader).
 */
export function plainCommands(keys: UserKeys, epoch: number, group: readonly PreparedEntry[]): PlainCommand[] {
  const best = new Map<string, PreparedEntry>();
  const days = new Map<number, ScriptArg[]>();
  for (const e of group) {
    const k = `${e.day}:${e.head.slice(16)}`;
    const b = best.get(k);
    if (b === undefined || e.seq > b.seq) best.set(k, e);
    const members = days.get(e.day);
    if (members === undefined) days.set(e.day, [ZERO, e.member]);
    else members.push(ZERO, e.member);
  }
  const { user } = group[0]!;
  const out: PlainCommand[] = [];
  for (const e of best.values()) {
    const physical = e.tail.slice(0, e.tail.indexOf(':'));
    out.push({
      command: ['ZADD', keys.proof(e.day), 'GT', (e.seq & OFFSET_MASK).toString(), `${epoch}:${e.head.slice(16)}`],
      user,
      dayExpiry: [keys.dayIndex(epoch, e.day), physical],
    });
  }
  for (const [day, members] of days) out.push({ command: ['ZADD', keys.dayIndex(epoch, day), ...members], user, dayExpiry: null });
  return out;
}

const ZERO = '0';
