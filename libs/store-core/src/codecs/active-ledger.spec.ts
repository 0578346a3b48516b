import fc from 'fast-check';
import { InvalidInputError, InvariantViolationError } from '../errors/domain-errors';
import { decodeActiveLedger, encodeActiveLedger } from './active-ledger';
import type { LedgerItem } from './active-ledger';
import { MAX_LEDGER_ITEMS } from './codec-limits';
import { activeLedgerSamples } from './golden/golden-samples';
import { ledgerArb, u64Arb } from '../testing/arbitraries';
import { codecFailureOf, describeCodecLaws } from '../testing/codec-laws';
import { describeGolden, loadGolden } from '../testing/golden';

/** Independent byte builder of the seed layout: "QRL" 0x01, u16 count, count × (u32, u64, u64), no checks. */
function rawLedger(items: readonly { day: number; maxSeq: bigint; expiresAt: bigint }[], count = items.length): Buffer {
  const b = Buffer.alloc(6 + 20 * items.length);
  b.write('QRL\x01', 0, 'latin1');
  b.writeUInt16BE(count, 4);
  items.forEach((it, i) => {
    b.writeUInt32BE(it.day, 6 + 20 * i);
    b.writeBigUInt64BE(it.maxSeq, 10 + 20 * i);
    b.writeBigUInt64BE(it.expiresAt, 18 + 20 * i);
  });
  return b;
}
const item = (day: number, maxSeq = 1n, expiresAt = 2n): LedgerItem => ({ day, maxSeq, expiresAt });
const days = (n: number) => Array.from({ length: n }, (_, i) => item(i * 3));

describeGolden('active-ledger', activeLedgerSamples, encodeActiveLedger, decodeActiveLedger);
describeCodecLaws('active-ledger', { arb: ledgerArb, encode: encodeActiveLedger, decode: decodeActiveLedger, magic: 'QRL' });

describe('active-ledger layout (seed format)', () => {
  it('is exactly "QRL" 0x01, u16 count and 20-byte triples (independent builder)', () => {
    fc.assert(
      fc.property(ledgerArb, (items) => {
        const bytes = encodeActiveLedger(items);
        expect(bytes.equals(rawLedger(items))).toBe(true);
        expect(bytes.length).toBe(6 + 20 * items.length);
      }),
      { numRuns: 100 },
    );
    expect(loadGolden('active-ledger').vectors['empty']).toBe('51524c010000');
  });

  it('holds up to 32 items', () => {
    expect(decodeActiveLedger(encodeActiveLedger(days(MAX_LEDGER_ITEMS)))).toHaveLength(32);
    expect(MAX_LEDGER_ITEMS).toBe(32);
  });
});

describe('decodeActiveLedger refusals', () => {
  it.each([
    ['33 items', rawLedger(days(33)), 'OUT_OF_RANGE'],
    ['a count of 33 with no items', rawLedger([], 33), 'OUT_OF_RANGE'],
    ['a count of 0xffff', rawLedger([], 0xffff), 'OUT_OF_RANGE'],
    ['descending days', rawLedger([item(5), item(4)]), 'NOT_CANONICAL'],
    ['a repeated day', rawLedger([item(5), item(5)]), 'NOT_CANONICAL'],
    ['maxSeq with bit 63', rawLedger([item(1, 1n << 63n)]), 'OUT_OF_RANGE'],
    ['expiresAt with bit 63', rawLedger([item(1, 1n, (1n << 64n) - 1n)]), 'OUT_OF_RANGE'],
    ['a count above the items', rawLedger([item(1)], 2), 'TRUNCATED'],
    ['a count below the items', rawLedger([item(1), item(2)], 1), 'TRAILING_BYTES'],
    ['another version', Buffer.from('51524c020000', 'hex'), 'UNKNOWN_VERSION'],
    ['another magic', Buffer.from('51524d010000', 'hex'), 'BAD_MAGIC'],
  ])('refuses %s', (_, bytes, failure) => {
    expect(codecFailureOf(() => decodeActiveLedger(bytes))).toBe(failure);
  });

  it('refuses any out-of-order pair (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffff_ffff }), fc.integer({ min: 0, max: 0xffff_ffff }), u64Arb, (a, b, seq) => {
        fc.pre(a >= b);
        expect(codecFailureOf(() => decodeActiveLedger(rawLedger([item(a, seq), item(b, seq)])))).toBe('NOT_CANONICAL');
      }),
      { numRuns: 100 },
    );
  });
});

describe('encodeActiveLedger validation', () => {
  it('refuses more than 32 items with InvariantViolationError', () => {
    expect(() => encodeActiveLedger(days(33))).toThrow(InvariantViolationError);
  });

  it.each([
    ['descending days', [item(5), item(4)], InvalidInputError],
    ['a repeated day', [item(5), item(5)], InvalidInputError],
    ['a negative day', [item(-1)], InvalidInputError],
    ['a day above u32', [item(2 ** 32)], InvalidInputError],
    ['a fractional day', [item(1.5)], InvalidInputError],
    ['maxSeq with bit 63', [item(1, 1n << 63n)], InvariantViolationError],
    ['a negative expiresAt', [item(1, 1n, -1n)], InvariantViolationError],
  ])('refuses %s', (_, items, error) => {
    expect(() => encodeActiveLedger(items)).toThrow(error);
  });
});
