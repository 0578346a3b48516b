import type { DeliveryLag } from '@qim/bus';
import { STALL_MAX_FACTOR } from '@qim/bus';
import type { PublicFailure } from '@qim/service-kit';
import type { SendOutcome, SendRequest } from '@qim/store-core';
import { UnavailableError } from '@qim/store-core';
import type { Sender } from './send-deadline';

/** Failed probes in a row after which a closed gate opens: a gate must not stay shut on a signal it can no longer read. */
export const PROBE_FAILURES_TO_OPEN = 3;

export interface AdmissionGateOptions {
  /** The gate closes when the delivery lag (`effectiveLagMs`) exceeds this (ms) and opens again at half of it. */
  readonly maxLagMs: number;
  /** Time between two probe reads (ms). */
  readonly pollMs: number;
  /**
   * The age (ms) from which the drain time counts too (`effectiveLagMs`); default a quarter of
   * `maxLagMs`. Must not come before a stall can be recognised (`admissionDrainAfterMs`).
   */
  readonly drainAfterMs?: number;
  /** How long a send waits at a closed gate before it is refused (ms; 0: refused at once). */
  readonly waitMs: number;
  readonly probe: { read(): Promise<DeliveryLag> };
  /** After every successful read. */
  readonly onLag?: (lag: DeliveryLag) => void;
  /** When the gate closes or opens, with the read that decided it (null: opened for failed reads or at stop). */
  readonly onChange?: (closed: boolean, lag: DeliveryLag | null) => void;
  /** A failed read and how many failed in a row. */
  readonly onProbeError?: (err: unknown, failures: number) => void;
  /**
   * A send that found the gate closed: let in at once as a `light` send (within the light lane's
   * budget), let in when the gate opened (`admitted`), or `refused` after `waitMs`.
   */
  readonly onWaited?: (outcome: 'light' | 'admitted' | 'refused') => void;
  /** Sends to small conversations that pass a closed gate at once (ADR-0023 decision 10); null or absent: none. */
  readonly light?: LightLane | null;
  /** Clock of the light lane's budget (ms; default `performance.now`). */
  readonly now?: () => number;
}

/**
 * The light lane of a closed gate: a send whose conversation has at most `maxFanout` members costs the
 * mailbox at most that many entries, so it passes a closed gate at once — as long as the light sends
 * let through stay within `entriesPerSecond` mailbox entries a second (one per member; a token
 * bucket holding at most one second of budget). Beyond it they wait like any other send.
 */
export interface LightLane {
  /** The largest conversation (members) whose sends are light; at least 1. */
  readonly maxFanout: number;
  /** Mailbox entries a second light sends may add while the gate is closed (and the burst); at least `maxFanout`. */
  readonly entriesPerSecond: number;
}

/** The light lane's budget: a token bucket of mailbox entries, full (one second's worth) when unused. */
export class LightBudget {
  private tokens: number;
  private at: number;

  constructor(
    private readonly lane: LightLane,
    private readonly now: () => number,
  ) {
    this.tokens = lane.entriesPerSecond;
    this.at = now();
  }

  /** True (and the entries spent) when a send of `fanout` members is light and fits the budget now. */
  take(fanout: number): boolean {
    if (!(fanout >= 1 && fanout <= this.lane.maxFanout)) return false;
    const t = this.now();
    this.tokens = Math.min(this.lane.entriesPerSecond, this.tokens + ((t - this.at) / 1000) * this.lane.entriesPerSecond);
    this.at = t;
    if (this.tokens < fanout) return false;
    this.tokens -= fanout;
    return true;
  }
}

/**
 * The delivery lag the gate decides on: the age of the oldest waiting record, or — once that age is
 * `drainAfterMs` (default a quarter of the bound), i.e. the consumers really are behind and not merely
 * waiting for their next commit — the time their backlog needs to drain at their measured pace,
 * whichever is larger.
 */
export function effectiveLagMs(lag: Pick<DeliveryLag, 'ageMs' | 'drainMs'>, maxLagMs: number, drainAfterMs: number = maxLagMs / 4): number {
  return lag.ageMs >= drainAfterMs ? Math.max(lag.ageMs, lag.drainMs) : lag.ageMs;
}

/**
 * From which age the drain time may count: never before a stalled partition can have been recognised
 * (its longest stall window, `stallMs × STALL_MAX_FACTOR`, plus one poll) — a partition that has just
 * stopped moving has a tiny measured pace, so its drain time would close the gate for a stall, which
 * is not load (ADR-0023 amendment). At least a quarter of the bound.
 */
export function admissionDrainAfterMs(cfg: { readonly maxLagMs: number; readonly stallMs: number; readonly pollMs: number }): number {
  return Math.max(cfg.maxLagMs / 4, cfg.stallMs * STALL_MAX_FACTOR + cfg.pollMs);
}

/** A send the admission gate did not let in: nothing was written, a retry with the same client id is safe. */
export class AdmissionRefusedError extends UnavailableError implements PublicFailure {
  readonly publicMessage: string;
  constructor(lagMs: number, maxLagMs: number, waitMs: number) {
    super(`send not admitted: delivery is ${lagMs} ms behind (bound ${maxLagMs} ms), waited ${waitMs} ms`);
    this.publicMessage =
      `not admitted: message delivery is ${Math.round(lagMs / 1000)} s behind (QIM_ADMISSION_MAX_LAG_MS ${maxLagMs} ms); ` +
      `nothing was written: retry later with the same client_message_id`;
  }
}

/**
 * Backpressure from delivery to sending. The gate polls how far the mailbox's consumers are behind
 * (`DeliveryLagProbe`, from the broker's committed positions) and closes while that exceeds
 * `maxLagMs`, opening again once it is down to half (so it does not flap at the bound). While it is
 * closed a send waits at the gate — no commit step has run, nothing is written — until it opens
 * (the send then goes on) or `waitMs` passes (`AdmissionRefusedError`, 503). So a sender population
 * faster than delivery is slowed to delivery's pace instead of piling up a backlog that grows
 * without bound (a message of a 1,000-member conversation is 1,000 mailbox entries). A probe that
 * keeps failing opens the gate (fail open: sends wait durably in Kafka either way, and a broker that
 * is really gone fails the publish on its own).
 */
export class AdmissionGate {
  private closed = false;
  private lagMs = 0;
  private failures = 0;
  private readonly waiters = new Set<() => void>();
  private running = false;
  private timer: NodeJS.Timeout | null = null;
  private wakeLoop: (() => void) | null = null;
  private loop: Promise<void> | null = null;

  private readonly light: LightBudget | null;

  constructor(private readonly opts: AdmissionGateOptions) {
    const lane = opts.light ?? null;
    const bounds = [
      ['maxLagMs', opts.maxLagMs, 1],
      ['pollMs', opts.pollMs, 1],
      ['waitMs', opts.waitMs, 0],
    ] as [string, number, number][];
    if (lane !== null) bounds.push(['light.maxFanout', lane.maxFanout, 1], ['light.entriesPerSecond', lane.entriesPerSecond, lane.maxFanout]);
    for (const [name, v, min] of bounds) {
      if (!Number.isSafeInteger(v) || v < min) throw new RangeError(`AdmissionGate ${name} must be an integer ≥ ${min}, got ${v}`);
    }
    this.light = lane === null ? null : new LightBudget(lane, opts.now ?? (() => performance.now()));
  }

  /** Reads the probe now and then every `pollMs` until `stop`. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        await this.poll();
        if (!this.running) break;
        await new Promise<void>((resolve) => {
          this.wakeLoop = resolve;
          this.timer = setTimeout(resolve, this.opts.pollMs);
        });
        this.timer = null;
        this.wakeLoop = null;
      }
    })();
  }

  /** Stops polling and opens the gate (every waiting send goes on). */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer !== null) clearTimeout(this.timer);
    this.wakeLoop?.();
    await this.loop;
    this.open(null);
  }

  /** One probe read and the decision on it (the loop's step; tests call it directly). */
  async poll(): Promise<void> {
    let lag: DeliveryLag;
    try {
      lag = await this.opts.probe.read();
    } catch (err) {
      this.failures += 1;
      this.opts.onProbeError?.(err, this.failures);
      if (this.failures >= PROBE_FAILURES_TO_OPEN) this.open(null);
      return;
    }
    this.failures = 0;
    this.lagMs = effectiveLagMs(lag, this.opts.maxLagMs, this.opts.drainAfterMs);
    this.opts.onLag?.(lag);
    if (!this.closed && this.lagMs > this.opts.maxLagMs) {
      this.closed = true;
      this.opts.onChange?.(true, lag);
    } else if (this.closed && this.lagMs <= this.opts.maxLagMs / 2) {
      this.open(lag);
    }
  }

  /**
   * Resolves at once while the gate is open; else when it opens, or rejects after `waitMs`. With a
   * light lane, a closed gate first asks `fanout` (the conversation's member count; read only then) and
   * lets a light send that fits the budget through at once; a fan-out that cannot be read counts as heavy.
   */
  async admit(fanout?: () => Promise<number>): Promise<void> {
    if (!this.closed) return;
    if (this.light !== null && fanout !== undefined) {
      const members = await fanout().catch(() => Infinity);
      if (!this.closed) return;
      if (this.light.take(members)) {
        this.opts.onWaited?.('light');
        return;
      }
    }
    return this.hold();
  }

  private hold(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const admitted = (): void => {
        clearTimeout(timer);
        this.opts.onWaited?.('admitted');
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(admitted);
        this.opts.onWaited?.('refused');
        reject(new AdmissionRefusedError(this.lagMs, this.opts.maxLagMs, this.opts.waitMs));
      }, this.opts.waitMs);
      this.waiters.add(admitted);
    });
  }

  /** Whether sends wait now, and the last effective lag read (ms). */
  state(): { readonly closed: boolean; readonly lagMs: number; readonly waiting: number } {
    return { closed: this.closed, lagMs: this.lagMs, waiting: this.waiters.size };
  }

  private open(lag: DeliveryLag | null): void {
    if (!this.closed) return;
    this.closed = false;
    this.opts.onChange?.(false, lag);
    const waiting = [...this.waiters];
    this.waiters.clear();
    for (const w of waiting) w();
  }
}

/**
 * A sender that lets a send start only through the admission gate (outside the send deadline: a wait
 * at the gate writes nothing). `fanoutOf` (the conversation's member count) is asked by a closed gate
 * with a light lane only.
 */
export class AdmissionSender implements Sender {
  constructor(
    private readonly inner: Sender,
    private readonly gate: Pick<AdmissionGate, 'admit'>,
    private readonly fanoutOf?: (request: SendRequest) => Promise<number>,
  ) {}

  async send(request: SendRequest): Promise<SendOutcome> {
    const fanoutOf = this.fanoutOf;
    await this.gate.admit(fanoutOf === undefined ? undefined : () => fanoutOf(request));
    return this.inner.send(request);
  }
}
