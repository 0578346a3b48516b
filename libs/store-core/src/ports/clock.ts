/** Wall-clock time in milliseconds since the Unix epoch (u64). Injectable so tests can move time. */
export interface Clock {
  nowMs(): bigint;
}

/** The process clock. */
export const systemClock: Clock = Object.freeze({ nowMs: () => BigInt(Date.now()) });
