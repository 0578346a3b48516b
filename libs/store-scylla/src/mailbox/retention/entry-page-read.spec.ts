import { nextFetchSize } from './entry-page-read';

describe('nextFetchSize', () => {
  it('without a byte budget asks for the rest of limit + 1 (at most one driver page)', () => {
    expect(nextFetchSize(501, undefined, 0, 0, 0)).toBe(501);
    expect(nextFetchSize(5_001, undefined, 0, 0, 0)).toBe(1_000);
  });

  it('with one: 2 rows first, then what the rest of the budget likely holds by the mean row size, plus one', () => {
    expect(nextFetchSize(501, 1, 0, 0, 0)).toBe(2);
    expect(nextFetchSize(999, 100_000, 2, 2_000, 2_000)).toBe(99);
    expect(nextFetchSize(499, 1 << 20, 2, 2_000, 2_000)).toBe(499);
    expect(nextFetchSize(499, 1_000, 2, 4_000, 4_000)).toBe(1);
    expect(nextFetchSize(3, 1 << 20, 2, 20, 20)).toBe(3);
  });
});
