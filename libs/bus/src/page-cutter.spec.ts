import type { ConsumedRecord } from './page-handler';
import { cutPages } from './page-cutter';

const rec = (offset: number): ConsumedRecord => ({ topic: 't', partition: 3, offset: BigInt(offset), key: null, value: Buffer.from([offset]) });

describe('cutPages', () => {
  it('cuts a batch into pages of at most n records, each spanning its first to last offset', () => {
    const pages = cutPages([5, 6, 7, 9, 10].map(rec), 2);
    expect(pages.map((p) => [p.fromOffset, p.toOffset, p.records.map((r) => r.offset)])).toEqual([
      [5n, 6n, [5n, 6n]],
      [7n, 9n, [7n, 9n]],
      [10n, 10n, [10n]],
    ]);
    expect(pages.every((p) => p.topic === 't' && p.partition === 3)).toBe(true);
  });

  it('keeps a batch smaller than the page whole and yields nothing for no records', () => {
    expect(cutPages([1, 2, 3].map(rec), 500)).toHaveLength(1);
    expect(cutPages([], 10)).toEqual([]);
  });

  it('refuses a page size below 1', () => {
    expect(() => cutPages([rec(1)], 0)).toThrow(RangeError);
  });
});
