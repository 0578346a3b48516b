import { MAX_LEDGER_ITEMS } from '../codecs/codec-limits';
import { InvalidInputError } from '../errors/domain-errors';
import { DAY_MS } from './retention-ledger';

/**
 * Bounds that keep the V4 retention proof sound under real server TTLs and imperfect clocks
 * (issue 10 items 3 and 4). One place, used by every backend and by the services' configuration.
 */

/**
 * Granularity of a server-side TTL: Cassandra/Scylla keep a cell's end in whole seconds, computed
 * from the coordinator's clock, and every replica drops it by its own clock.
 */
export const TTL_GRANULARITY_MS = 1_000n;

/**
 * How long before an entry's `expiresAt` a reader must already treat it as possibly gone, for a
 * clock-skew allowance `S` bounding how far any two clocks involved (service processes, database
 * nodes) disagree: the writer computes the TTL from its clock (`ceil(expiresAt) − floor(now)`, whole
 * seconds), the coordinator adds it to ITS whole second (a writer up to `S` ahead of it loses up to
 * `S` rounded up to the next second, i.e. < `S` + 1 s), every replica drops the cell by its own clock
 * (up to `S` ahead of the coordinator), and the reader compares with its clock (up to `S` behind the
 * writer is already in the first term). Margin: `1 s + 2·S`. A range scan never claims coverage
 * (`next = upTo`) of a ledger day inside this margin: it waits for the day's expiry and inspects
 * again, so the hole becomes a `CursorExpiredError`, never a silent skip.
 */
export function readerExpiryMarginMs(clockSkewAllowanceMs: bigint): bigint {
  if (clockSkewAllowanceMs < 0n) throw new InvalidInputError(`clock-skew allowance must be ≥ 0 ms: ${clockSkewAllowanceMs}`);
  return TTL_GRANULARITY_MS + 2n * clockSkewAllowanceMs;
}

/**
 * The longest entry retention (whole days) whose live ledger items always fit the 32-item active
 * ledger. An item of day `d` lives until `(d + 1)·DAY + R` and is consumed only once that passed, so
 * at any instant the days `[today − ceil(R/DAY), today]` may be live (`ceil(R/DAY) + 1` items), plus
 * the days an entry's `createdAt` can lie ahead of the appending store's clock (`ceil(skew/DAY)`: a
 * writer clock ahead of ours across midnight). Hence `R ≤ (32 − 1 − ceil(skew/DAY))` days:
 * 31 days with synchronised clocks, 30 with any skew up to a day.
 */
export function maxRetentionDays(clockSkewAllowanceMs: bigint): number {
  if (clockSkewAllowanceMs < 0n) throw new InvalidInputError(`clock-skew allowance must be ≥ 0 ms: ${clockSkewAllowanceMs}`);
  const skewDays = (clockSkewAllowanceMs + DAY_MS - 1n) / DAY_MS;
  return Math.max(0, MAX_LEDGER_ITEMS - 1 - Number(skewDays));
}

/**
 * Refuses an entry retention the ledger cannot hold (`InvalidInputError` naming the largest value):
 * with a longer one the 33rd live day would make every append of the user fail
 * (`registerDay` → `InvariantViolationError`) and stall the shard.
 */
export function checkMailboxRetention(entryRetentionMs: bigint, clockSkewAllowanceMs: bigint): void {
  const days = maxRetentionDays(clockSkewAllowanceMs);
  if (entryRetentionMs < 0n || entryRetentionMs > BigInt(days) * DAY_MS) {
    throw new InvalidInputError(
      `mailbox retention ${entryRetentionMs} ms is longer than the 32-item active ledger holds: ` +
        `at most ${days} days with a clock-skew allowance of ${clockSkewAllowanceMs} ms`,
    );
  }
}
