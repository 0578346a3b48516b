import type { ManualClock } from '@qim/store-core/testing';

/** Extra real time waited past an expiry: server TTLs have whole-second granularity. */
export const REAL_TTL_MARGIN_MS = 1_100n;
/**
 * Longest single real-time wait a case may ask for (keeps the suite fast on real servers): room for the
 * ephemeral-history cases' server-counted TTLs (up to 11 s plus the margin, history-integrity-cases.ts).
 */
export const MAX_REAL_WAIT_MS = 13_000n;
/** Jest timeout of cases that may wait real time. */
export const TIMED_CASE_TIMEOUT_MS = 30_000;

/**
 * The suite's view of time. With a manual clock, time moves only when a case says so; with real
 * time (clock null), "moving" means sleeping until the wall clock is past the target plus a margin.
 */
export class TimeControl {
  constructor(readonly clock: ManualClock | null) {}

  /** True when the backend's time is the injected manual clock. */
  get manual(): boolean {
    return this.clock !== null;
  }

  /** The backend's "now" in ms. */
  now(): bigint {
    return this.clock !== null ? this.clock.nowMs() : BigInt(Date.now());
  }

  /**
   * Brings time to at least `t` (and, on real time, past `t` + `REAL_TTL_MARGIN_MS` so a server TTL
   * rounded up to whole seconds has fired). A real wait longer than `MAX_REAL_WAIT_MS` fails the case.
   */
  async reach(t: bigint): Promise<void> {
    if (this.clock !== null) {
      if (t > this.clock.nowMs()) this.clock.set(t);
      return;
    }
    const wait = t + REAL_TTL_MARGIN_MS - BigInt(Date.now());
    if (wait <= 0n) return;
    if (wait > MAX_REAL_WAIT_MS) throw new Error(`contract case asked for a ${wait} ms real-time wait (limit ${MAX_REAL_WAIT_MS} ms)`);
    await new Promise((resolve) => setTimeout(resolve, Number(wait)));
  }

  /** Moves time forward by `ms` exactly (manual) or sleeps `ms` (real; no margin). */
  async pass(ms: bigint): Promise<void> {
    if (this.clock !== null) {
      this.clock.advance(ms);
      return;
    }
    if (ms > MAX_REAL_WAIT_MS) throw new Error(`contract case asked for a ${ms} ms real-time wait (limit ${MAX_REAL_WAIT_MS} ms)`);
    await new Promise((resolve) => setTimeout(resolve, Number(ms)));
  }
}
