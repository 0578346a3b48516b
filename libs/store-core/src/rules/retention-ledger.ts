import type { LedgerItem } from '../codecs/active-ledger';
import { MAX_LEDGER_ITEMS } from '../codecs/codec-limits';
import { CorruptEntryError, CursorExpiredError, InvariantViolationError } from '../errors/domain-errors';
import { assertU64 } from '../model/u64';

/**
 * V4 retention ledger math (seed "MailboxStore": bucket proof → same-row active ledger → entry).
 *
 * Time is cut into UTC day buckets. Every entry created on day `d` expires at the same absolute
 * instant `(d + 1) · DAY_MS + retentionMs`, so one ledger item per day describes all of that day's
 * live entries: `{day, maxSeq (highest seq registered live that day), expiresAt}`. Once an item's
 * `expiresAt ≤ now` its entries may be gone; consuming it merges its max seq into the user's
 * *expired gap boundary*, and a cursor below `max(trim, gap)` is `CursorExpiredError`. Seqs and
 * creation times are not monotonic to each other, so an expired high-seq bucket next to a live
 * low-seq bucket still expires every cursor below the high seq — never silently skips it.
 */

/** One UTC day in milliseconds. */
export const DAY_MS = 86_400_000n;
const MAX_DAY = 0xffff_ffff;

/**
 * Storage sentinel for "no expired gap yet" where a backend must store a number (a Redis string, a
 * CQL column compared in an LWT). The domain value is `null`; convert only with `gapToStored` /
 * `gapFromStored`. A real gap boundary is a mailbox seq, always ≥ 0.
 */
export const NO_GAP = -1n;

/** The day bucket (u32 days since the Unix epoch, UTC) of a millisecond timestamp. */
export function dayOf(ms: bigint): number {
  const day = assertU64(ms, 'timestamp ms') / DAY_MS;
  if (day > BigInt(MAX_DAY)) throw new InvariantViolationError(`day bucket beyond u32: ${day}`);
  return Number(day);
}

/**
 * The absolute expiry (ms) of an entry created at `createdAt`: end of its creation day plus
 * `retentionMs` (≥ 0). Shared by every entry of the day; fixed at first write, never renewed.
 */
export function entryExpiry(createdAt: bigint, retentionMs: bigint): bigint {
  assertU64(retentionMs, 'retention ms');
  return assertU64((BigInt(dayOf(createdAt)) + 1n) * DAY_MS + retentionMs, 'entry expiry');
}

/** Domain gap → stored number (`null` → `NO_GAP`). */
export function gapToStored(gap: bigint | null): bigint {
  return gap === null ? NO_GAP : assertU64(gap, 'gap boundary');
}

/** Stored number → domain gap (`NO_GAP` → `null`); any other negative value → `CorruptEntryError`. */
export function gapFromStored(v: bigint): bigint | null {
  if (v === NO_GAP) return null;
  if (v < 0n) throw new CorruptEntryError(`stored gap boundary is negative: ${v}`);
  return v;
}

function checkItem(item: LedgerItem): void {
  if (!Number.isInteger(item.day) || item.day < 0 || item.day > MAX_DAY) {
    throw new InvariantViolationError(`ledger day out of range: ${item.day}`);
  }
  assertU64(item.maxSeq, 'ledger maxSeq');
  assertU64(item.expiresAt, 'ledger expiresAt');
}

/**
 * Registers `item` in an ascending ledger, or raises its day's item: `maxSeq` becomes the larger
 * one and `expiresAt` the *earlier* one (decision: if the retention changed between writers, the
 * day is treated as expired as soon as its first entries may vanish — a forced resync, never a
 * silent hole). Returns a new ascending ledger; more than `MAX_LEDGER_ITEMS` (32) items →
 * `InvariantViolationError` (callers consume expired items first, which bounds the ledger).
 */
export function registerDay(ledger: readonly LedgerItem[], item: LedgerItem): LedgerItem[] {
  checkItem(item);
  const out = ledger.filter((i) => i.day !== item.day);
  const prev = ledger.find((i) => i.day === item.day);
  const merged: LedgerItem = prev
    ? {
        day: item.day,
        maxSeq: prev.maxSeq > item.maxSeq ? prev.maxSeq : item.maxSeq,
        expiresAt: prev.expiresAt < item.expiresAt ? prev.expiresAt : item.expiresAt,
      }
    : { day: item.day, maxSeq: item.maxSeq, expiresAt: item.expiresAt };
  out.push(merged);
  out.sort((a, b) => a.day - b.day);
  if (out.length > MAX_LEDGER_ITEMS) {
    throw new InvariantViolationError(`active ledger would hold ${out.length} items (max ${MAX_LEDGER_ITEMS})`);
  }
  return out;
}

/** Result of `consumeExpired`. */
export interface ConsumedLedger<T> {
  /** Items still live (`expiresAt > now`), ascending. */
  readonly ledger: T[];
  /** Items with `expiresAt ≤ now`, ascending. */
  readonly expired: T[];
}

/** Splits a ledger at `nowMs`: an item is expired when `expiresAt ≤ nowMs`. */
export function consumeExpired<T extends LedgerItem>(ledger: readonly T[], nowMs: bigint): ConsumedLedger<T> {
  return { ledger: ledger.filter((i) => i.expiresAt > nowMs), expired: ledger.filter((i) => i.expiresAt <= nowMs) };
}

/** The gap boundary after an expired bucket with max seq `maxSeq`: `max(gap, maxSeq)` (null = none yet). */
export function mergeGap(gap: bigint | null, maxSeq: bigint): bigint {
  assertU64(maxSeq, 'gap seq');
  return gap === null || maxSeq > gap ? maxSeq : gap;
}

/** The lowest legal cursor: `max(trim, gap)` with null meaning "none"; null when both are null. */
export function cursorBoundary(trim: bigint | null, gap: bigint | null): bigint | null {
  if (trim === null) return gap;
  if (gap === null) return trim;
  return trim > gap ? trim : gap;
}

/**
 * Throws `CursorExpiredError` (with `boundary = max(trim, gap)`) when `after < max(trim, gap)`:
 * entries the cursor still needs may have been trimmed or expired, the device must resync.
 */
export function checkCursor(after: bigint, trim: bigint | null, gap: bigint | null): void {
  const boundary = cursorBoundary(trim, gap);
  if (boundary !== null && after < boundary) {
    throw new CursorExpiredError(`cursor ${after} is below the retained boundary ${boundary}`, boundary);
  }
}

/**
 * The per-(user, epoch, day) bucket proof: the highest seq ever written for the day (live or as an
 * expired replay) and the day's absolute expiry. Written *before* the meta, so it is always ≥ the
 * ledger item of its day; a lower or missing proof is damage.
 */
export type BucketProof = LedgerItem;

/** The proof after writing `seq` on `day`: `maxSeq` raised, `expiresAt` the earlier one (as `registerDay`). */
export function mergeBucketProof(prev: BucketProof | null, day: number, seq: bigint, expiresAt: bigint): BucketProof {
  if (prev !== null && prev.day !== day) throw new InvariantViolationError(`bucket proof of day ${prev.day} merged with day ${day}`);
  const [merged] = registerDay(prev === null ? [] : [prev], { day, maxSeq: seq, expiresAt });
  return merged!;
}
