import type { MailboxStore } from '@qim/store-core';
import type { Frontier, FrontierBoard } from './frontier-board';

export interface FrontierPollerOptions {
  readonly board: FrontierBoard;
  readonly storeFor: (shard: number) => Promise<MailboxStore>;
  /** How often a watched shard's frontier is read from the store while no owner here keeps it in memory (ms). */
  readonly pollMs: number;
  /** Each frontier read this poller makes. */
  readonly onRead?: () => void;
}

interface Watched {
  watchers: number;
  /** The read in flight; every caller of `current` and the next ticks share it. */
  inflight: Promise<Frontier> | null;
  /** The last frontier read, and when the read answered (Date.now() ms). */
  value: Frontier | undefined;
  readAt: number;
}

/**
 * One frontier read per (shard, interval) for every long poll of a shard this process does not
 * apply (issue 28, item 8). A waiting sync `watch`es its shard; while a shard has watchers and the
 * board holds no owned frontier for it, the poller reads the store's frontier once every `pollMs`
 * and `announce`s it on the board, which wakes the waiters below it (spread: `wakeBatch`). A waiter
 * that needs a frontier takes `current`: the last read if it answered within `pollMs`, else the read
 * in flight, else one new read — so N waiters of a shard cost one read per interval, not N.
 *
 * A store that stops answering leaves the read in flight: the ticks skip the shard, and a waiter
 * whose wait ends joins that read under its own deadline (the reader's store bound answers 503).
 */
export class FrontierPoller {
  private readonly shards = new Map<number, Watched>();
  private timer: NodeJS.Timeout | null = null;
  private watchers = 0;

  constructor(private readonly opts: FrontierPollerOptions) {
    if (!Number.isInteger(opts.pollMs) || opts.pollMs < 1) throw new RangeError(`pollMs must be an integer ≥ 1: ${opts.pollMs}`);
  }

  /** Registers a waiter of `shard`; returns its removal (idempotent). The poll timer runs while any waiter is registered. */
  watch(shard: number): () => void {
    const w = this.stateOf(shard);
    w.watchers += 1;
    this.watchers += 1;
    if (this.timer === null) {
      this.timer = setInterval(() => this.tick(), this.opts.pollMs);
      this.timer.unref();
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      w.watchers -= 1;
      this.watchers -= 1;
      this.forgetIfIdle(shard, w);
      if (this.watchers === 0 && this.timer !== null) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
  }

  /** Shards with a waiter now. */
  get watchedShards(): number {
    let n = 0;
    for (const w of this.shards.values()) if (w.watchers > 0) n += 1;
    return n;
  }

  /** A frontier of `shard` read from the store at most `pollMs` ago: the last read, the read in flight, or a new one. */
  current(shard: number): Promise<Frontier> {
    const w = this.stateOf(shard);
    if (w.inflight !== null) return w.inflight;
    if (w.value !== undefined && Date.now() - w.readAt <= this.opts.pollMs) return Promise.resolve(w.value);
    return this.read(shard, w);
  }

  private tick(): void {
    for (const [shard, w] of this.shards) {
      if (w.watchers === 0 || w.inflight !== null || this.opts.board.known(shard) !== undefined) continue;
      this.read(shard, w).catch(() => undefined); // a waiter that needs this read joins it and sees the error
    }
  }

  private read(shard: number, w: Watched): Promise<Frontier> {
    this.opts.onRead?.();
    const p = this.opts
      .storeFor(shard)
      .then((store) => store.frontier())
      .then(({ offset }) => {
        w.value = offset;
        w.readAt = Date.now();
        this.opts.board.announce(shard, offset);
        return offset;
      })
      .finally(() => {
        if (w.inflight === p) w.inflight = null;
        this.forgetIfIdle(shard, w);
      });
    w.inflight = p;
    return p;
  }

  private stateOf(shard: number): Watched {
    let w = this.shards.get(shard);
    if (w === undefined) this.shards.set(shard, (w = { watchers: 0, inflight: null, value: undefined, readAt: 0 }));
    return w;
  }

  private forgetIfIdle(shard: number, w: Watched): void {
    if (w.watchers === 0 && w.inflight === null && this.shards.get(shard) === w) this.shards.delete(shard);
  }
}
