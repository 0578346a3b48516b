/** Wall-clock time in milliseconds since the Unix epoch (u64). Injectable so tests can move time. */
export interface Clock {
  nowMs(): bigint;
}

/** The process clock. */
export const systemClock: Clock = Object.freeze({ nowMs: () => BigInt(Date.now()) });

/** A clock that only moves when told to. For Memory/Redis contract runs and unit tests. */
export class ManualClock implements Clock {
  constructor(private now: bigint) {}
  nowMs(): bigint {
    return this.now;
  }
  /** Moves time forward by `ms` (never backward). */
  advance(ms: bigint): void {
    if (ms < 0n) throw new RangeError('a ManualClock never goes back');
    this.now += ms;
  }
  set(ms: bigint): void {
    if (ms < this.now) throw new RangeError('a ManualClock never goes back');
    this.now = ms;
  }
}
