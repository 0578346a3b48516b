import type { QimClient } from '@qim/client';
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Endpoints } from './bench-client';
import { benchClient, errorCode } from './bench-client';
import type { Population } from './population';
import { Tally, sleep } from './stats';
import type { Visibility } from './visibility';

export interface SendRun {
  readonly attempted: number;
  readonly accepted: number;
  /** Send latency (ms) of accepted sends, from the send's intended start. */
  readonly latencies: number[];
  readonly errors: Tally;
  /** Sending window: first send to last answer (ms). */
  readonly windowMs: number;
  /** Sends not issued because `maxInFlight` sends were already waiting (fixed rate only). */
  readonly skipped: number;
  /** Each send's intended start (performance.now() ms) and outcome: null = accepted, else its error code (the mixed phase's timeline). */
  readonly outcomes: [number, string | null][];
}

/**
 * At most `size` sends on the wire at once, like a connection pool of that size: the others wait
 * here in order (their wait counts in their latency) and never reach the writer if abandoned.
 */
export class WireSlots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  /** True once a slot is held; false when `signal` aborted first. */
  take(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    if (this.free > 0) {
      this.free--;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const grant = (): void => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      };
      const onAbort = (): void => {
        const i = this.waiting.indexOf(grant);
        if (i >= 0) this.waiting.splice(i, 1);
        resolve(false);
      };
      this.waiting.push(grant);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

/**
 * Issues sends (`send` of @qim/client: a new client message id each, no retry) from random members
 * of random conversations, at most `maxOnWire` at once; registers each accepted one for visibility
 * by the members that have a device.
 */
export class Sender {
  private readonly body: Uint8Array;
  private readonly tenant: QimClient;
  private readonly members = new Map<string, QimClient>();
  private readonly slots: WireSlots;
  private next = 0;

  constructor(
    endpoints: Endpoints,
    private readonly pop: Population,
    private readonly visibility: Visibility,
    payloadBytes: number,
    maxOnWire: number,
    /** Members with a syncing device: visibility is expected from these only (a message with none is not tracked). */
    private readonly synced: ReadonlySet<string>,
    /** 0: single sends; N: batches of N sends of one member to one conversation (`sendMany`). */
    private readonly batch = 0,
  ) {
    this.body = randomBytes(payloadBytes);
    // A send is bounded by 60 s (or abandoned at the phase's end).
    this.tenant = benchClient(endpoints, 60_000, pop.tenant);
    this.slots = new WireSlots(maxOnWire);
  }

  private as(user: string): QimClient {
    let c = this.members.get(user);
    if (c === undefined) this.members.set(user, (c = this.tenant.as(user)));
    return c;
  }

  /**
   * Open loop: send k starts at k/rate s, whatever the answers do; bounded by `seconds`, `maxSends`
   * and `maxInFlight`. Sends still open at `deadline` (performance.now() ms) are abandoned.
   */
  async fixedRate(rate: number, seconds: number, maxSends: number, deadline: number, maxInFlight = 2_000): Promise<SendRun> {
    const run = this.newRun();
    const abandon = this.abandonAt(deadline);
    const per = Math.max(1, this.batch);
    const total = Math.floor(Math.min(maxSends, Math.floor(rate * seconds)) / per);
    const t0 = performance.now();
    const inFlight = new Set<Promise<void>>();
    for (let k = 0; k < total; k++) {
      const due = t0 + (k * per * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      if (inFlight.size >= maxInFlight) {
        run.skipped++;
        continue;
      }
      // Intended start, unless the timer woke early: latency never counts time before the send.
      const p = this.one(run, Math.min(due, performance.now()), abandon.signal).finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    await Promise.all(inFlight);
    clearTimeout(abandon.timer);
    run.windowMs = performance.now() - t0;
    return run;
  }

  /**
   * Closed loop: `concurrency` sends in flight, each followed at once by the next, for `seconds`
   * (≤ `maxSends`). Sends still open at `deadline` (performance.now() ms) are abandoned.
   */
  async saturation(concurrency: number, seconds: number, maxSends: number, deadline: number): Promise<SendRun> {
    const run = this.newRun();
    const abandon = this.abandonAt(deadline);
    const t0 = performance.now();
    const end = t0 + seconds * 1000;
    const worker = async (): Promise<void> => {
      while (performance.now() < end && run.attempted < maxSends) await this.one(run, performance.now(), abandon.signal);
    };
    // In batch mode `concurrency` counts sends: that many in flight as batches (at least one batch).
    const workers = this.batch === 0 ? concurrency : Math.max(1, Math.ceil(concurrency / this.batch));
    await Promise.all(Array.from({ length: workers }, worker));
    clearTimeout(abandon.timer);
    run.windowMs = performance.now() - t0;
    return run;
  }

  private abandonAt(deadline: number): { signal: AbortSignal; timer: NodeJS.Timeout } {
    const c = new AbortController();
    setMaxListeners(0, c.signal);
    return { signal: c.signal, timer: setTimeout(() => c.abort(), Math.max(0, deadline - performance.now())) };
  }

  private newRun(): SendRun & { attempted: number; accepted: number; skipped: number; windowMs: number } {
    return { attempted: 0, accepted: 0, latencies: [], errors: new Tally(), windowMs: 0, skipped: 0, outcomes: [] };
  }

  private async one(
    run: { attempted: number; accepted: number; latencies: number[]; errors: Tally; outcomes: [number, string | null][] },
    start: number,
    signal: AbortSignal,
  ): Promise<void> {
    const c = this.pop.conversations[this.next++ % this.pop.conversations.length]!;
    const sender = c.members[Math.floor(Math.random() * c.members.length)]!;
    run.attempted += Math.max(1, this.batch);
    if (!(await this.slots.take(signal))) {
      run.errors.add('abandoned at phase end', Math.max(1, this.batch));
      run.outcomes.push([start, 'abandoned at phase end']);
      return;
    }
    if (this.batch > 0) return this.many(run, c, sender, start, signal);
    try {
      const sent = await this.as(sender).send({ conversationId: c.id, body: this.body }, signal);
      run.accepted++;
      run.latencies.push(performance.now() - start);
      run.outcomes.push([start, null]);
      const watchers = c.members.filter((m) => this.synced.has(m));
      if (watchers.length > 0) this.visibility.expect(sent.messageId, start, watchers);
    } catch (err) {
      const code = signal.aborted ? 'abandoned at phase end' : errorCode(err);
      run.errors.add(code);
      run.outcomes.push([start, code]);
    } finally {
      this.slots.give();
    }
  }

  /** One batch of `batch` sends from `sender` to `c` (a slot already held): each item counted as a send, its latency the batch's. */
  private async many(
    run: { accepted: number; latencies: number[]; errors: Tally },
    c: Population['conversations'][number],
    sender: string,
    start: number,
    signal: AbortSignal,
  ): Promise<void> {
    try {
      const inputs = Array.from({ length: this.batch }, () => ({ conversationId: c.id, body: this.body }));
      const items = await this.as(sender).sendMany(inputs, signal);
      const now = performance.now();
      const watchers = c.members.filter((m) => this.synced.has(m));
      for (const item of items) {
        if (!item.ok) {
          run.errors.add(signal.aborted ? 'abandoned at phase end' : errorCode(item.error));
          continue;
        }
        run.accepted++;
        run.latencies.push(now - start);
        if (watchers.length > 0) this.visibility.expect(item.result.messageId, start, watchers);
      }
    } finally {
      this.slots.give();
    }
  }
}
