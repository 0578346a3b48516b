import fc from 'fast-check';
import type { LedgerItem } from '../codecs/active-ledger';
import { CorruptEntryError, CursorExpiredError, InvariantViolationError } from '../errors/domain-errors';
import {
  checkCursor,
  consumeExpired,
  cursorBoundary,
  DAY_MS,
  dayOf,
  entryExpiry,
  gapFromStored,
  gapToStored,
  mergeBucketProof,
  mergeGap,
  NO_GAP,
  registerDay,
} from './retention-ledger';

const item = (day: number, maxSeq: bigint, expiresAt = BigInt(day + 2) * DAY_MS): LedgerItem => ({ day, maxSeq, expiresAt });

describe('day buckets and absolute expiry', () => {
  it('golden values', () => {
    expect(dayOf(0n)).toBe(0);
    expect(dayOf(DAY_MS - 1n)).toBe(0);
    expect(dayOf(1_700_000_000_000n)).toBe(19675);
    expect(entryExpiry(1_700_000_000_000n, 3_600_000n)).toBe(19676n * DAY_MS + 3_600_000n);
  });

  it('every entry of one day shares one expiry, later days expire later', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.bigInt({ min: 0n, max: DAY_MS - 1n }), fc.bigInt({ min: 0n, max: 30n * DAY_MS }), (t, d, r) => {
        const start = (t / DAY_MS) * DAY_MS;
        expect(entryExpiry(start + d, r)).toBe(entryExpiry(start, r));
        expect(entryExpiry(start + DAY_MS, r)).toBe(entryExpiry(start, r) + DAY_MS);
        expect(entryExpiry(start + d, r) > start + d + r).toBe(true);
      }),
    );
  });

  it('rejects negative or bit-63 times and a day beyond u32', () => {
    expect(() => dayOf(-1n)).toThrow(InvariantViolationError);
    expect(() => dayOf(2n ** 63n)).toThrow(InvariantViolationError);
    expect(() => dayOf(2n ** 32n * DAY_MS)).toThrow(InvariantViolationError);
    expect(() => entryExpiry(0n, -1n)).toThrow(InvariantViolationError);
  });
});

describe('gap storage sentinel', () => {
  it('maps null ↔ NO_GAP and refuses other negatives', () => {
    expect(gapToStored(null)).toBe(NO_GAP);
    expect(gapToStored(5n)).toBe(5n);
    expect(gapFromStored(NO_GAP)).toBeNull();
    expect(gapFromStored(0n)).toBe(0n);
    expect(() => gapFromStored(-2n)).toThrow(CorruptEntryError);
    expect(() => gapToStored(-5n)).toThrow(InvariantViolationError);
  });
});

describe('registerDay', () => {
  it('registers in ascending order and raises a day: max seq up, expiry the earlier one', () => {
    let l = registerDay([], item(5, 10n));
    l = registerDay(l, item(3, 7n));
    l = registerDay(l, item(9, 1n));
    expect(l.map((i) => i.day)).toEqual([3, 5, 9]);
    l = registerDay(l, { day: 5, maxSeq: 4n, expiresAt: 999n * DAY_MS });
    expect(l[1]).toEqual(item(5, 10n));
    l = registerDay(l, { day: 5, maxSeq: 12n, expiresAt: 1n });
    expect(l[1]).toEqual({ day: 5, maxSeq: 12n, expiresAt: 1n });
  });

  it('holds 32 items and refuses a 33rd', () => {
    let l: LedgerItem[] = [];
    for (let d = 0; d < 32; d++) l = registerDay(l, item(d, BigInt(d)));
    expect(l).toHaveLength(32);
    expect(registerDay(l, item(31, 100n))).toHaveLength(32);
    expect(() => registerDay(l, item(32, 1n))).toThrow(InvariantViolationError);
  });

  it('rejects malformed items', () => {
    expect(() => registerDay([], item(-1, 1n))).toThrow(InvariantViolationError);
    expect(() => registerDay([], item(1.5, 1n, 5n))).toThrow(InvariantViolationError);
    expect(() => registerDay([], item(1, -1n))).toThrow(InvariantViolationError);
    expect(() => registerDay([], { day: 1, maxSeq: 1n, expiresAt: 2n ** 63n })).toThrow(InvariantViolationError);
  });
});

describe('consumeExpired / mergeGap / checkCursor', () => {
  it('an item expires exactly at expiresAt', () => {
    const l = [item(1, 5n, 100n), item(2, 6n, 200n)];
    expect(consumeExpired(l, 99n)).toEqual({ ledger: l, expired: [] });
    expect(consumeExpired(l, 100n)).toEqual({ ledger: [l[1]], expired: [l[0]] });
    expect(consumeExpired(l, 500n)).toEqual({ ledger: [], expired: l });
  });

  it('mergeGap keeps the maximum', () => {
    expect(mergeGap(null, 4n)).toBe(4n);
    expect(mergeGap(9n, 4n)).toBe(9n);
    expect(mergeGap(3n, 4n)).toBe(4n);
  });

  it('a cursor below max(trim, gap) is expired, at or above it is fine', () => {
    expect(cursorBoundary(null, null)).toBeNull();
    expect(cursorBoundary(3n, null)).toBe(3n);
    expect(cursorBoundary(null, 4n)).toBe(4n);
    expect(cursorBoundary(8n, 4n)).toBe(8n);
    expect(cursorBoundary(2n, 4n)).toBe(4n);
    expect(() => checkCursor(0n, null, null)).not.toThrow();
    expect(() => checkCursor(10n, 10n, 4n)).not.toThrow();
    expect(() => checkCursor(9n, 10n, 4n)).toThrow(CursorExpiredError);
    try {
      checkCursor(3n, 2n, 7n);
      throw new Error('not thrown');
    } catch (e) {
      expect(e).toBeInstanceOf(CursorExpiredError);
      expect((e as CursorExpiredError).boundary).toBe(7n);
      expect((e as CursorExpiredError).code).toBe('CURSOR_EXPIRED');
    }
  });
});

describe('mergeBucketProof', () => {
  it('raises max seq, keeps the earlier expiry, refuses another day', () => {
    const p = mergeBucketProof(null, 4, 10n, 500n);
    expect(p).toEqual({ day: 4, maxSeq: 10n, expiresAt: 500n });
    expect(mergeBucketProof(p, 4, 3n, 400n)).toEqual({ day: 4, maxSeq: 10n, expiresAt: 400n });
    expect(mergeBucketProof(p, 4, 30n, 600n)).toEqual({ day: 4, maxSeq: 30n, expiresAt: 500n });
    expect(() => mergeBucketProof(p, 5, 1n, 1n)).toThrow(InvariantViolationError);
  });
});
