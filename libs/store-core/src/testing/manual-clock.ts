import type { Clock } from '../ports/clock';

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
