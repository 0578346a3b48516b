import fc from 'fast-check';
import { InvalidInputError } from '../errors/domain-errors';
import { PageCutter, cutBatch } from './cut-batch';

const entry = (seq: number, events: number, bytes = 0): { seq: number; events: { payload: Uint8Array }[] } => ({
  seq,
  events: Array.from({ length: events }, (_, i) => ({ payload: new Uint8Array(i === 0 ? bytes : 0) })),
});

describe('cutBatch', () => {
  it('takes entries while the event total stays within the limit', () => {
    const entries = [entry(1, 2), entry(2, 2), entry(3, 2)];
    expect(cutBatch(entries, 4)).toEqual({ taken: entries.slice(0, 2), cut: true });
    expect(cutBatch(entries, 5)).toEqual({ taken: entries.slice(0, 2), cut: true });
    expect(cutBatch(entries, 6)).toEqual({ taken: entries, cut: false });
    expect(cutBatch([], 1)).toEqual({ taken: [], cut: false });
  });

  it('takes the first entry whole even over the limit, and nothing after it', () => {
    const entries = [entry(1, 10), entry(2, 1)];
    expect(cutBatch(entries, 3)).toEqual({ taken: [entries[0]], cut: true });
  });

  it('stops at the first entry that does not fit (never skips to a smaller later one)', () => {
    const entries = [entry(1, 1), entry(2, 5), entry(3, 1)];
    expect(cutBatch(entries, 3)).toEqual({ taken: [entries[0]], cut: true });
  });

  it('property: a non-empty prefix of whole entries, within the limit unless it is the single first entry', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 30 }), fc.integer({ min: 1, max: 20 }), (sizes, limit) => {
        const entries = sizes.map((n, i) => entry(i, n));
        const { taken, cut } = cutBatch(entries, limit);
        expect(taken).toEqual(entries.slice(0, taken.length));
        expect(cut).toBe(taken.length < entries.length);
        if (entries.length > 0) expect(taken.length).toBeGreaterThan(0);
        const total = taken.reduce((s, e) => s + e.events.length, 0);
        if (taken.length > 1) expect(total).toBeLessThanOrEqual(limit);
        if (cut) expect(total + entries[taken.length]!.events.length).toBeGreaterThan(limit);
      }),
    );
  });

  it('rejects a limit below 1 or fractional', () => {
    for (const l of [0, -3, 1.5]) expect(() => cutBatch([entry(1, 1)], l)).toThrow(InvalidInputError);
  });

  it('with maxBytes: the first entry whole over the budget, then strictly within it (payload bytes)', () => {
    const entries = [entry(1, 1, 50), entry(2, 2, 30), entry(3, 1, 20)];
    expect(cutBatch(entries, 100, 1)).toEqual({ taken: [entries[0]], cut: true });
    expect(cutBatch(entries, 100, 79)).toEqual({ taken: [entries[0]], cut: true });
    expect(cutBatch(entries, 100, 80)).toEqual({ taken: entries.slice(0, 2), cut: true });
    expect(cutBatch(entries, 100, 100)).toEqual({ taken: entries, cut: false });
    expect(cutBatch(entries, 3, 100)).toEqual({ taken: entries.slice(0, 2), cut: true });
    for (const b of [0, -1, 2.5]) expect(() => cutBatch(entries, 10, b)).toThrow(InvalidInputError);
  });

  it('PageCutter refuses every entry after the first that did not fit', () => {
    const c = new PageCutter(10, 10);
    expect([c.offer(entry(1, 1, 20)), c.cut, c.offer(entry(2, 1, 1)), c.cut, c.offer(entry(3, 1, 0))]).toEqual([true, false, false, true, false]);
    expect(c.taken).toHaveLength(1);
  });
});
