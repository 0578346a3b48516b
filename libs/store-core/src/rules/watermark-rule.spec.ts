import fc from 'fast-check';
import { CorruptEntryError, WatermarkConflictError, WatermarkNotReadyError, WatermarkStalledError } from '../errors/domain-errors';
import type { LaneWatermark } from '../model/mailbox';
import { decideAdvance, decideFloor, recomputeWatermark, verifyWatermark } from './watermark-rule';
import type { AdvanceFacts, LaneSource } from './watermark-rule';

const src = (offset: bigint, complete = true): LaneSource => ({ offset, complete });

describe('recomputeWatermark', () => {
  it('walks contiguous complete offsets from the lowest when there is no floor', () => {
    expect(recomputeWatermark(null, [])).toBeNull();
    expect(recomputeWatermark(null, [src(5n), src(6n), src(7n)])).toBe(7n);
    expect(recomputeWatermark(null, [src(7n), src(5n), src(6n)])).toBe(7n);
    expect(recomputeWatermark(null, [src(5n, false), src(6n)])).toBeNull();
  });

  it('a hole stalls W; it is never squeezed out', () => {
    expect(recomputeWatermark(null, [src(5n), src(6n), src(8n), src(9n)])).toBe(6n);
  });

  it('an incomplete source stalls W even when later ones are complete', () => {
    expect(recomputeWatermark(null, [src(5n), src(6n, false), src(7n)])).toBe(5n);
  });

  it('anchors at the floor: starts at floor + 1 and ignores sources at or below it', () => {
    expect(recomputeWatermark(10n, [])).toBe(10n);
    expect(recomputeWatermark(10n, [src(3n, false), src(10n, false), src(11n), src(12n)])).toBe(12n);
    expect(recomputeWatermark(10n, [src(12n), src(13n)])).toBe(10n);
  });

  it('refuses a twice-recorded offset', () => {
    expect(() => recomputeWatermark(null, [src(5n), src(9n), src(9n)])).toThrow(CorruptEntryError);
  });

  it('property: W is the end of the complete contiguous run from the floor', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 40 })), fc.array(fc.boolean(), { minLength: 41, maxLength: 41 }), fc.option(fc.integer({ min: 0, max: 40 })), (offs, done, floor) => {
        const sources = offs.map((o) => src(BigInt(o), done[o]!));
        const f = floor === null ? null : BigInt(floor);
        const w = recomputeWatermark(f, [...sources].reverse());
        expect(recomputeWatermark(f, sources)).toBe(w);
        const set = new Map(offs.map((o) => [o, done[o]!]));
        let expected: number | null = floor;
        let next = floor === null ? Math.min(...offs) : floor + 1;
        while (set.get(next) === true) expected = next++;
        expect(w).toBe(expected === null ? null : BigInt(expected));
      }),
    );
  });
});

describe('verifyWatermark', () => {
  const wm = (w: bigint | null, floor: bigint | null): LaneWatermark => ({ lane: 3, w, floor });
  it('accepts equal values at or above the floor', () => {
    expect(verifyWatermark(wm(null, null), null)).toEqual(wm(null, null));
    expect(verifyWatermark(wm(7n, 5n), 7n)).toEqual(wm(7n, 5n));
    expect(verifyWatermark(wm(5n, 5n), 5n)).toEqual(wm(5n, 5n));
  });
  it('refuses disagreement or anything below the floor', () => {
    expect(() => verifyWatermark(wm(7n, 5n), 8n)).toThrow(WatermarkNotReadyError);
    expect(() => verifyWatermark(wm(7n, null), null)).toThrow(WatermarkNotReadyError);
    expect(() => verifyWatermark(wm(4n, 5n), 4n)).toThrow(WatermarkNotReadyError);
    expect(() => verifyWatermark(wm(null, 5n), null)).toThrow(WatermarkNotReadyError);
  });
});

describe('decideAdvance', () => {
  const facts = (p: Partial<AdvanceFacts>): AdvanceFacts => ({ current: 9n, expectedPrev: 9n, offset: 10n, lowestRecorded: 3n, recorded: true, complete: true, ...p });
  it('advances to the next recorded complete offset', () => {
    expect(decideAdvance(facts({}))).toBe('advance');
    expect(decideAdvance(facts({ current: null, expectedPrev: null, offset: 3n }))).toBe('advance');
  });
  it('repeating an offset at or below W is an idempotent no-op (even with a stale expectation)', () => {
    expect(decideAdvance(facts({ offset: 9n }))).toBe('noop');
    expect(decideAdvance(facts({ current: 12n, expectedPrev: 9n, offset: 10n }))).toBe('noop');
  });
  it('W ≠ expected previous → WatermarkConflict', () => {
    expect(() => decideAdvance(facts({ expectedPrev: 8n }))).toThrow(WatermarkConflictError);
    expect(() => decideAdvance(facts({ current: null, expectedPrev: 2n, offset: 3n }))).toThrow(WatermarkConflictError);
  });
  it('a hole, a skipped offset, nothing recorded or incomplete chunks → WatermarkStalled', () => {
    expect(() => decideAdvance(facts({ offset: 11n }))).toThrow(WatermarkStalledError);
    expect(() => decideAdvance(facts({ recorded: false }))).toThrow(WatermarkStalledError);
    expect(() => decideAdvance(facts({ complete: false }))).toThrow(WatermarkStalledError);
    expect(() => decideAdvance(facts({ current: null, expectedPrev: null, offset: 4n }))).toThrow(WatermarkStalledError);
    expect(() => decideAdvance(facts({ current: null, expectedPrev: null, lowestRecorded: null, offset: 4n }))).toThrow(WatermarkStalledError);
  });
});

describe('decideFloor', () => {
  const wm: LaneWatermark = { lane: 0, w: 20n, floor: 5n };
  it('moves the floor forward up to W', () => {
    expect(decideFloor(wm, 5n, 20n)).toBe('advance');
    expect(decideFloor(wm, 5n, 5n)).toBe('noop');
    expect(decideFloor({ lane: 0, w: 3n, floor: null }, null, 0n)).toBe('advance');
  });
  it('refuses a stale expectation, a move back, past W, or with no W', () => {
    expect(() => decideFloor(wm, 4n, 10n)).toThrow(WatermarkConflictError);
    expect(() => decideFloor(wm, 5n, 4n)).toThrow(WatermarkConflictError);
    expect(() => decideFloor(wm, 5n, 21n)).toThrow(WatermarkConflictError);
    expect(() => decideFloor({ lane: 0, w: null, floor: null }, null, 0n)).toThrow(WatermarkConflictError);
  });
});
