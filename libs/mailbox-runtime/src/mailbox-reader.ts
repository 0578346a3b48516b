import type { Id128, MailboxEntry, MailboxStore, RangeScanPage } from '@qim/store-core';
import type { ReadBudget } from '@qim/service-kit';
import { CursorExpiredError, ForbiddenError, InvalidInputError, epochStartSeq, seqForWatermark, splitMailboxSeq } from '@qim/store-core';
import type { Frontier, FrontierBoard } from './frontier-board';
import { frontierAbove, userKeyOf } from './frontier-board';
import { FrontierPoller } from './frontier-poller';
import { waitForFrontier } from './frontier-wait';
import { ShardPlacements } from './shard-placements';
import { WokenReads } from './woken-reads';
import { beforeDeadline } from './store-deadline';

export interface SyncPage {
  readonly entries: readonly MailboxEntry[];
  readonly nextAfter: bigint;
  readonly hasMore: boolean;
  /** `seqForWatermark(epoch, frontier)`: the proven end of what this page could see. */
  readonly upTo: bigint;
}

export interface SyncRequest {
  readonly tenantId: Id128;
  readonly actingUser: Id128;
  readonly userId: Id128;
  /** Exclusive cursor; null: the start of the current epoch. */
  readonly after: bigint | null;
  /** Most events in the page (`cutBatch`; the first entry is always whole). */
  readonly limit: number;
  /** Byte budget of the page: sum of the entries' event payloads; the first entry is always whole (the store stops reading there). */
  readonly maxBytes: number;
  /** Long-poll: wait up to this long (ms) for entries after the cursor; 0 answers at once. */
  readonly waitMs: number;
  /** Ends the wait early (client gone). */
  readonly signal?: AbortSignal;
}

export interface MailboxReaderOptions {
  readonly storeFor: (shard: number) => Promise<MailboxStore>;
  readonly shardCount: number;
  readonly epoch: number;
  /** The shard worker's frontiers and wake-ups (shared with the worker of this process). */
  readonly board: FrontierBoard;
  /**
   * How often the frontier of a shard owned by another process is read while syncs wait on it (ms,
   * default 100): one read per shard and interval, shared by all its waiters (`FrontierPoller`).
   */
  readonly pollMs?: number;
  /** Each frontier read of the shared poller (the waiters of shards applied elsewhere). */
  readonly onPoll?: () => void;
  /** Each range scan a sync needed: `read` from the store, or `skipped` (the cursor proven current). */
  readonly onScan?: (result: 'read' | 'skipped') => void;
  /** Each store call of woken long polls' scans (`WokenReads`), with the number of scans it carried. */
  readonly onWokenRead?: (reads: number) => void;
  /**
   * The repeat hold (ms, `QIM_SYNC_REPEAT_HOLD_MS`; 0 or absent: none). A sync that finds nothing
   * after the cursor of one of this user's answers, within this long of that answer, waits as a
   * long poll until the hold has passed since it (answered at once when an entry arrives).
   */
  readonly repeatHoldMs?: number;
  /** Each sync the repeat hold made wait. */
  readonly onHold?: () => void;
  /**
   * How long past the end of its wait (`waitMs`, or the repeat hold) a sync may still wait for the
   * store (ms, default 2 000): a store call pending then fails the sync with `UnavailableError`
   * (503), so a store that stopped answering costs a device `waitMs` + this, never the store's own
   * timeouts or TCP's.
   */
  readonly storeBoundMs?: number;
  /** Answers remembered for the repeat hold at most, the oldest forgotten first (default 131,072, about 100 B each). */
  readonly maxRememberedAnswers?: number;
  /**
   * The process's bound on page bytes read at once (`QIM_READ_BUDGET_BYTES`): each range scan holds
   * its `maxBytes` while the store reads (never while a long poll waits), or reads a shorter page
   * with the part that is free (`ReadBudget.run`); absent: unbounded.
   */
  readonly readBudget?: ReadBudget;
}

interface Scan {
  readonly page: SyncPage;
  readonly frontier: Frontier;
}

/**
 * Device sync over the mailbox stores. A user's entries are visible up to the shard frontier:
 * `up_to = seqForWatermark(epoch, F)`, F read in O(1) — from memory for a shard this process applies,
 * else one `frontier()` read. A user reads only their own mailbox. With `waitMs`, an empty answer
 * waits until the shard worker applies a page that gives this user an entry (in-process wake-up), or
 * — for a shard applied elsewhere — until the shared poller (`FrontierPoller`: one frontier read per
 * shard and `pollMs` for all its waiters) reads a higher frontier; then the waiters below it re-read,
 * spread over time (`FrontierBoard` wake batches), never all at the same instant.
 *
 * A cursor the board proves current is not read: when this process applied every page of the shard
 * above the cursor and none gave the user an entry (`FrontierBoard.quietSince`), a scan up to the
 * known frontier would answer nothing, so the sync answers (or starts waiting) without one. That is
 * the common long poll, sent right after the previous answer; a wake-up still reads. Such an empty
 * page keeps the device's cursor (a scan would move it to `up_to`): the read that comes with the
 * next entry is the one that checks the cursor against trim and retention, so a cursor below the
 * retained boundary still gets `CursorExpiredError` before any entry past it.
 *
 * The repeat hold keeps device polling from crowding out delivery: a device that asks again with the
 * cursor its last answer gave it (`next_after`), sooner than `repeatHoldMs` after that answer, and
 * finds nothing new, waits like a long poll until `repeatHoldMs` has passed since the answer — woken
 * at once by an entry, so only empty answers are paced, never a delivery. However fast devices
 * poll, a user's empty answers cost at most one per hold and cursor; each is one a long poll could
 * give, and the answer before it had already said the device was caught up (`has_more` false).
 *
 * A sync is bounded whatever its store does: every store call it makes must answer before the end of
 * its wait (`waitMs`, or the repeat hold) + `storeBoundMs`, else the sync fails with
 * `UnavailableError` (503) and the device retries from its cursor (issue 28, item 5).
 */
export class MailboxReader {
  private readonly pollMs: number;
  private readonly repeatHoldMs: number;
  private readonly maxAnswers: number;
  private readonly storeBoundMs: number;
  /** `userKey next_after` → when a page with that cursor was answered (Date.now()); oldest first. */
  private readonly answers = new Map<string, number>();
  /** A device syncs again and again: its shard is remembered, not hashed each time. */
  private readonly placements: ShardPlacements;
  private readonly poller: FrontierPoller;
  /** The scans of long polls woken in one turn: one store call per store (ADR-0041). */
  private readonly woken: WokenReads;

  constructor(private readonly opts: MailboxReaderOptions) {
    this.pollMs = opts.pollMs ?? 100;
    this.repeatHoldMs = opts.repeatHoldMs ?? 0;
    if (!Number.isInteger(this.repeatHoldMs) || this.repeatHoldMs < 0) throw new InvalidInputError(`repeatHoldMs must be an integer ≥ 0: ${this.repeatHoldMs}`);
    this.storeBoundMs = opts.storeBoundMs ?? 2_000;
    if (!Number.isInteger(this.storeBoundMs) || this.storeBoundMs < 1) throw new InvalidInputError(`storeBoundMs must be an integer ≥ 1: ${this.storeBoundMs}`);
    this.maxAnswers = opts.maxRememberedAnswers ?? 131_072;
    if (!Number.isInteger(this.maxAnswers) || this.maxAnswers < 1)
      throw new InvalidInputError(`maxRememberedAnswers must be an integer ≥ 1: ${this.maxAnswers}`);
    this.placements = new ShardPlacements(opts.shardCount);
    this.poller = new FrontierPoller({ board: opts.board, storeFor: opts.storeFor, pollMs: this.pollMs, onRead: opts.onPoll });
    this.woken = new WokenReads(opts.onWokenRead);
  }

  /** Shards whose waiters the shared poller serves now. */
  get polledShards(): number {
    return this.poller.watchedShards;
  }

  /** Answers the repeat hold remembers now (bounded by `maxRememberedAnswers`, and by the hold: older ones are forgotten). */
  get rememberedAnswers(): number {
    return this.answers.size;
  }

  get board(): FrontierBoard {
    return this.opts.board;
  }

  private assertOwner(actingUser: Id128, userId: Id128): void {
    if (actingUser !== userId) throw new ForbiddenError('a user may read and truncate only their own mailbox');
  }

  /** The frontier of `shard`: in memory when this process applies it, else one store read. */
  async frontierOf(shard: number, store: MailboxStore): Promise<Frontier> {
    const known = this.opts.board.known(shard);
    if (known !== undefined) return known;
    const { offset } = await store.frontier();
    this.opts.board.learn(shard, offset);
    return offset;
  }

  async sync(req: SyncRequest): Promise<SyncPage> {
    this.assertOwner(req.actingUser, req.userId);
    if (!Number.isInteger(req.waitMs) || req.waitMs < 0) throw new InvalidInputError(`wait_ms must be an integer ≥ 0: ${req.waitMs}`);
    const shard = this.placements.of(req.tenantId, req.userId);
    let deadline = Date.now() + req.waitMs;
    // Every store call of this sync ends by the end of its wait + the store bound (503 past it).
    const bounded = <T>(call: Promise<T>): Promise<T> => beforeDeadline(call, deadline + this.storeBoundMs, 'sync');
    const store = await bounded(this.opts.storeFor(shard));
    const userKey = userKeyOf(req.tenantId, req.userId);
    let scan: Scan =
      this.provenCurrent(shard, userKey, req) ?? (await bounded<Scan>(this.firstFrontier(shard, store, req).then((f) => this.scan(store, req, f))));
    const held = this.heldUntil(userKey, req.after, scan.page);
    if (held > deadline) {
      deadline = held;
      this.opts.onHold?.();
    }
    let unwatch: (() => void) | null = null;
    try {
      for (;;) {
        const remaining = deadline - Date.now();
        if (scan.page.entries.length > 0 || scan.page.hasMore || remaining <= 0 || this.opts.board.closed || req.signal?.aborted)
          return this.answered(userKey, scan.page);
        // Watched whatever the owner: a shard released mid-wait is then polled without a gap.
        unwatch ??= this.poller.watch(shard);
        const end = await waitForFrontier(this.opts.board, { shard, scanned: scan.frontier, userKey, timeoutMs: remaining, signal: req.signal });
        if (end === 'aborted' || end === 'closed') return this.answered(userKey, scan.page);
        // No entry is visible above the frontier scanned until the frontier moves: nothing to read before then.
        const frontier = await bounded(this.waitedFrontier(shard));
        // Read together with the other waiters this advance woke: one store call for all of them.
        if (frontierAbove(frontier, scan.frontier))
          scan = this.provenCurrent(shard, userKey, req) ?? (await bounded<Scan>(this.scan(store, req, frontier, 'woken')));
      }
    } finally {
      unwatch?.();
    }
  }

  /**
   * The frontier a sync first reads up to. A long poll of a shard applied elsewhere takes the shared
   * poller's (at most `pollMs` old): entries above it wake the poll at the poller's next read, as they
   * would a waiter; a sync that does not wait reads the store, so it sees all that is applied now.
   */
  private firstFrontier(shard: number, store: MailboxStore, req: SyncRequest): Promise<Frontier> {
    return req.waitMs > 0 && this.opts.board.known(shard) === undefined ? this.poller.current(shard) : this.frontierOf(shard, store);
  }

  /** The frontier after a wait: in memory for a shard applied here, else the shared poller's (at most `pollMs` old, one read per shard). */
  private waitedFrontier(shard: number): Promise<Frontier> {
    const known = this.opts.board.known(shard);
    return known !== undefined ? Promise.resolve(known) : this.poller.current(shard);
  }

  /** Until when (Date.now() ms) the repeat hold keeps this sync waiting; 0: not held. */
  private heldUntil(userKey: string, after: bigint | null, first: SyncPage): number {
    if (this.repeatHoldMs === 0 || after === null || first.entries.length > 0 || first.hasMore) return 0;
    const at = this.answers.get(`${userKey} ${after}`);
    return at === undefined ? 0 : at + this.repeatHoldMs;
  }

  /** Remembers an answer's cursor for the repeat hold (forgetting those older than the hold) and returns it. */
  private answered(userKey: string, page: SyncPage): SyncPage {
    if (this.repeatHoldMs === 0) return page;
    const now = Date.now();
    const key = `${userKey} ${page.nextAfter}`;
    this.answers.delete(key);
    this.answers.set(key, now);
    for (const [k, at] of this.answers) {
      if (at > now - this.repeatHoldMs && this.answers.size <= this.maxAnswers) break;
      this.answers.delete(k);
    }
    return page;
  }

  /** The empty page of a cursor the board proves current (see the class comment); null: read. */
  private provenCurrent(shard: number, userKey: string, req: SyncRequest): Scan | null {
    const page = this.provenPage(shard, userKey, req);
    if (page !== null) this.opts.onScan?.('skipped');
    return page;
  }

  private provenPage(shard: number, userKey: string, req: SyncRequest): Scan | null {
    if (req.after === null) return null;
    const frontier = this.opts.board.known(shard);
    if (frontier === undefined) return null;
    let cursor;
    try {
      cursor = splitMailboxSeq(req.after);
    } catch {
      return null; // the scan refuses it
    }
    if (cursor.epoch !== this.opts.epoch || frontierAbove(cursor.offset, frontier)) return null;
    if (!this.opts.board.quietSince(shard, userKey, cursor.offset)) return null;
    return { page: { entries: [], nextAfter: req.after, hasMore: false, upTo: seqForWatermark(this.opts.epoch, frontier) }, frontier };
  }

  /** A scan up to `frontier`: on its own, or (`woken`) with the other scans of this turn's woken long polls. */
  private async scan(store: MailboxStore, req: SyncRequest, frontier: Frontier, how: 'alone' | 'woken' = 'alone'): Promise<Scan> {
    this.opts.onScan?.('read');
    const upTo = seqForWatermark(this.opts.epoch, frontier);
    const budget = this.opts.readBudget;
    const raw =
      budget === undefined
        ? await this.rangeFrom(store, req, upTo, how)
        : await budget.run(req.maxBytes, (granted) => this.rangeFrom(store, granted < req.maxBytes ? { ...req, maxBytes: granted } : req, upTo, how));
    return { page: { entries: raw.entries, nextAfter: raw.next, hasMore: raw.hasMore, upTo }, frontier };
  }

  /**
   * A device without a cursor (a fresh install, or one that was just told to resync) starts at the
   * start of the epoch — or, when the user's mailbox no longer reaches back that far (trim or an
   * expired retention gap), at the retained boundary the store names. A device WITH a cursor below
   * the boundary still gets `CursorExpiredError`: only it can know it missed something.
   */
  private async rangeFrom(store: MailboxStore, req: SyncRequest, upTo: bigint, how: 'alone' | 'woken'): Promise<RangeScanPage> {
    const from = (after: bigint): Promise<RangeScanPage> =>
      how === 'woken'
        ? this.woken.read(store, { tenantId: req.tenantId, userId: req.userId, after, upTo, limit: req.limit, maxBytes: req.maxBytes })
        : store.rangeScan(req.tenantId, req.userId, after, upTo, req.limit, req.maxBytes);
    if (req.after !== null) return from(req.after);
    try {
      return await from(epochStartSeq(this.opts.epoch));
    } catch (err) {
      if (!(err instanceof CursorExpiredError)) throw err;
      return from(err.boundary);
    }
  }

  /** Raises the user's trim: entries at or below `before` become unreadable (cursors below → CURSOR_EXPIRED). */
  async truncate(tenantId: Id128, actingUser: Id128, userId: Id128, before: bigint): Promise<void> {
    this.assertOwner(actingUser, userId);
    const store = await this.opts.storeFor(this.placements.of(tenantId, userId));
    await store.truncateBefore(tenantId, userId, before);
  }
}
