import type { Id128 } from '@qim/store-core';

/** A frontier value: an offset, or null before the first page of the epoch (below every offset). */
export type Frontier = bigint | null;

/** True when frontier `a` is above `b` (null is below every offset). */
export function frontierAbove(a: Frontier, b: Frontier): boolean {
  return a !== null && (b === null || a > b);
}

/** The key under which a user's appearance in a page is announced. */
export const userKeyOf = (tenantId: Id128, userId: Id128): string => `${tenantId}:${userId}`;

/** What the board tells the waiters of one shard. */
export type BoardEvent =
  | {
      readonly kind: 'advanced';
      /** The frontier before this advance, when known; undefined: unknown (waiters must re-read). */
      readonly prior: Frontier | undefined;
      readonly frontier: bigint;
      /** Users with an entry in `(prior, frontier]`; null: unknown (every waiter re-reads). */
      readonly users: ReadonlySet<string> | null;
    }
  | { readonly kind: 'released' }
  | { readonly kind: 'closed' };

/** A waiter's listener; returns true when the event ended its wait (it woke), which counts against the wake budget. */
export type BoardListener = (e: BoardEvent) => boolean | void;

export interface FrontierBoardOptions {
  /**
   * Users remembered for `quietSince` over all owned shards (default 131,072, ≈ 28 MB), shared evenly
   * between them; a shard's least recently served users are forgotten into its floor beyond its share.
   */
  readonly trackedUsers?: number;
  /**
   * Waiters one event may wake at once (default 256): the waiters after them get the event
   * `wakeGapMs` later, the next `wakeBatch` woken, and so on, so an advance whose users are unknown
   * (or a page for a large room) never sends every waiter of a shard to the store at the same instant.
   */
  readonly wakeBatch?: number;
  /** The pause between two batches of wake-ups of one event (ms, default 5). */
  readonly wakeGapMs?: number;
}

/** What this process knows of an owned shard's pages since it started following its frontier. */
interface ShardTouches {
  /** Every page above this frontier was applied here, with its users known. */
  readonly from: Frontier;
  /** Users given an entry by those pages, each with the frontier of its latest such page; least recent first. */
  readonly users: Map<string, bigint>;
  /** The highest frontier of a forgotten user; null while none was forgotten. */
  floor: bigint | null;
}

/**
 * The in-process view of the shard frontiers: for the shards this process owns (its dispatch
 * partitions), the frontier as last applied or read here, so a sync of those shards reads it from
 * memory; and, per shard, the waiters of long-polling syncs, woken as soon as a page is applied.
 * Every value here is a frontier the store has durably reached, so it may lag the store, never lead it.
 */
export class FrontierBoard {
  private owned = new Set<number>();
  private readonly values = new Map<number, bigint | null>();
  private readonly listeners = new Map<number, Set<BoardListener>>();
  private readonly touches = new Map<number, ShardTouches>();
  /** Frontiers of shards not owned here, as last read by the shared poller (`announce`). */
  private readonly polled = new Map<number, Frontier>();
  /** Deliveries of events to waiters beyond a wake batch, not yet made. */
  private readonly deferred = new Set<NodeJS.Timeout>();
  private readonly trackedUsers: number;
  private readonly wakeBatch: number;
  private readonly wakeGapMs: number;
  private isClosed = false;

  constructor(opts: FrontierBoardOptions = {}) {
    this.trackedUsers = opts.trackedUsers ?? 131_072;
    this.wakeBatch = opts.wakeBatch ?? 256;
    this.wakeGapMs = opts.wakeGapMs ?? 5;
    if (!Number.isInteger(this.wakeBatch) || this.wakeBatch < 1) throw new RangeError(`wakeBatch must be an integer ≥ 1: ${this.wakeBatch}`);
    if (!Number.isInteger(this.wakeGapMs) || this.wakeGapMs < 0) throw new RangeError(`wakeGapMs must be an integer ≥ 0: ${this.wakeGapMs}`);
  }

  /** The shards assigned to this process after a rebalance; waiters of the others re-read the store. */
  own(shards: readonly number[]): void {
    const next = new Set(shards);
    for (const s of this.owned) {
      if (next.has(s)) continue;
      this.values.delete(s);
      this.touches.delete(s);
      this.emit(s, { kind: 'released' });
    }
    this.owned = next;
  }

  owns(shard: number): boolean {
    return this.owned.has(shard);
  }

  /** The frontier of an owned shard known here; undefined when not owned or not known yet (read the store). */
  known(shard: number): Frontier | undefined {
    return this.owned.has(shard) ? this.values.get(shard) : undefined;
  }

  /**
   * The highest frontier of `shard` known here without a read: an owned shard's, else the one the
   * shared poller last read (it may lag the store by a poll interval); undefined: none.
   */
  latest(shard: number): Frontier | undefined {
    const known = this.known(shard);
    return known !== undefined ? known : this.polled.get(shard);
  }

  /**
   * Records a frontier read from the store for an owned shard (never lowers what is known); a raise
   * wakes the shard's waiters below it (pages up to it were applied elsewhere or before: who they
   * served is unknown here).
   */
  learn(shard: number, frontier: Frontier): void {
    if (!this.owned.has(shard)) return;
    const current = this.values.get(shard);
    if (current === undefined || frontierAbove(frontier, current)) {
      this.values.set(shard, frontier);
      this.follow(shard, frontier);
      if (frontier !== null) this.emit(shard, { kind: 'advanced', prior: current, frontier, users: null });
    }
  }

  /**
   * A frontier the shared poller read from the store: for an owned shard, `learn`; for another, a
   * rise above the last one read wakes the shard's waiters below it (who it served is unknown: the
   * wake-ups are spread, `wakeBatch`).
   */
  announce(shard: number, frontier: Frontier): void {
    if (this.owned.has(shard)) return this.learn(shard, frontier);
    const prior = this.polled.get(shard);
    if (prior !== undefined && !frontierAbove(frontier, prior)) return;
    this.polled.set(shard, frontier);
    if (frontier !== null) this.emit(shard, { kind: 'advanced', prior, frontier, users: null });
  }

  /**
   * A page was applied: the store's frontier of `shard` is now at least `frontier`. `users` are the
   * users given entries by this page, or null when that is not known; `fromOffset`, the page's first
   * offset, when given, tells whether the page continues the known frontier: a page starting above
   * it leaves the offsets between applied elsewhere, so its users are not all of `(prior, frontier]`.
   */
  advance(shard: number, frontier: bigint, pageUsers: ReadonlySet<string> | null, fromOffset?: bigint): void {
    const prior = this.known(shard);
    if (prior !== undefined && !frontierAbove(frontier, prior)) return;
    const gap = fromOffset !== undefined && prior !== undefined && (prior === null ? fromOffset > 0n : fromOffset > prior + 1n);
    const users = gap ? null : pageUsers;
    if (this.owned.has(shard)) {
      this.values.set(shard, frontier);
      if (prior === undefined || users === null) this.follow(shard, frontier);
      else this.touched(shard, frontier, users);
    }
    this.emit(shard, { kind: 'advanced', prior, frontier, users: prior === undefined ? null : users });
  }

  /**
   * True when this process can tell without a read that no entry of the user is visible above the
   * cursor frontier `cursor` (the source offset of a sync cursor): it owns the shard, has applied
   * every page above `cursor` itself, and none of those gave the user an entry. A range scan from the
   * cursor up to the known frontier would answer no entries.
   */
  quietSince(shard: number, userKey: string, cursor: Frontier): boolean {
    if (!this.owned.has(shard)) return false;
    const t = this.touches.get(shard);
    if (t === undefined || frontierAbove(t.from, cursor)) return false;
    const last = t.users.get(userKey) ?? t.floor;
    return last === null || !frontierAbove(last, cursor);
  }

  /** Starts following `shard` from `frontier`: nothing is known of the pages up to it. */
  private follow(shard: number, frontier: Frontier): void {
    this.touches.set(shard, { from: frontier, users: new Map(), floor: null });
  }

  private touched(shard: number, frontier: bigint, users: ReadonlySet<string>): void {
    const t = this.touches.get(shard);
    if (t === undefined) return;
    for (const u of users) {
      t.users.delete(u);
      t.users.set(u, frontier);
    }
    const share = Math.max(1, Math.floor(this.trackedUsers / Math.max(1, this.owned.size)));
    while (t.users.size > share) {
      const [oldest, at] = t.users.entries().next().value as [string, bigint];
      t.users.delete(oldest);
      if (t.floor === null || at > t.floor) t.floor = at;
    }
  }

  /** Registers a listener for `shard`; returns its removal. */
  subscribe(shard: number, listener: BoardListener): () => void {
    let set = this.listeners.get(shard);
    if (!set) this.listeners.set(shard, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(shard) === set) this.listeners.delete(shard);
    };
  }

  /** Listeners registered now (of one shard, or of all). */
  waiterCount(shard?: number): number {
    if (shard !== undefined) return this.listeners.get(shard)?.size ?? 0;
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Shutdown: wakes every waiter and makes later waits return at once. */
  close(): void {
    this.isClosed = true;
    for (const t of this.deferred) clearTimeout(t);
    this.deferred.clear();
    for (const shard of [...this.listeners.keys()]) this.emit(shard, { kind: 'closed' });
  }

  /** Wake-ups of events not yet delivered to every waiter (beyond a wake batch). */
  get deferredDeliveries(): number {
    return this.deferred.size;
  }

  private emit(shard: number, e: BoardEvent): void {
    const set = this.listeners.get(shard);
    if (set) this.deliver(set, [...set], 0, e);
  }

  /**
   * Gives `e` to the listeners of `list` from `from` on that are still registered; once `wakeBatch`
   * of them woke, the rest get it `wakeGapMs` later. A listener that gets an older event after a
   * newer one still decides right: it wakes on any event whose `prior` is above what it has seen.
   */
  private deliver(set: Set<BoardListener>, list: readonly BoardListener[], from: number, e: BoardEvent): void {
    let woke = 0;
    for (let i = from; i < list.length; i++) {
      const l = list[i]!;
      if (!set.has(l) || l(e) !== true) continue;
      if (++woke < this.wakeBatch || i + 1 === list.length || e.kind === 'closed') continue;
      const t = setTimeout(() => {
        this.deferred.delete(t);
        this.deliver(set, list, i + 1, e);
      }, this.wakeGapMs);
      this.deferred.add(t);
      return;
    }
  }
}
