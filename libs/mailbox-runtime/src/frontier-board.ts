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

export type BoardListener = (e: BoardEvent) => void;

export interface FrontierBoardOptions {
  /**
   * Users remembered for `quietSince` over all owned shards (default 131,072, ≈ 28 MB), shared evenly
   * between them; a shard's least recently served users are forgotten into its floor beyond its share.
   */
  readonly trackedUsers?: number;
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
  private readonly trackedUsers: number;
  private isClosed = false;

  constructor(opts: FrontierBoardOptions = {}) {
    this.trackedUsers = opts.trackedUsers ?? 131_072;
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

  /** Records a frontier read from the store for an owned shard (never lowers what is known). */
  learn(shard: number, frontier: Frontier): void {
    if (!this.owned.has(shard)) return;
    const current = this.values.get(shard);
    if (current === undefined || frontierAbove(frontier, current)) {
      this.values.set(shard, frontier);
      // Pages up to it were applied elsewhere (or before): who they served is unknown here.
      this.follow(shard, frontier);
    }
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
    for (const shard of [...this.listeners.keys()]) this.emit(shard, { kind: 'closed' });
  }

  private emit(shard: number, e: BoardEvent): void {
    const set = this.listeners.get(shard);
    if (!set) return;
    for (const l of [...set]) l(e);
  }
}
