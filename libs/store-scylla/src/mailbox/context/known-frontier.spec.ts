import { KnownFrontier, indexReadCovers } from './known-frontier';

describe('KnownFrontier', () => {
  it('only rises; null teaches nothing', () => {
    const k = new KnownFrontier();
    expect(k.value).toBeNull();
    k.raise(null);
    expect(k.value).toBeNull();
    k.raise(5n);
    k.raise(3n);
    k.raise(null);
    expect(k.value).toBe(5n);
    k.raise(9n);
    expect(k.value).toBe(9n);
  });
});

describe('indexReadCovers', () => {
  it('an index read sent with a known frontier covers a frontier read at or below it, never one above it', () => {
    expect(indexReadCovers(5n, 5n)).toBe(true);
    expect(indexReadCovers(5n, 4n)).toBe(true);
    expect(indexReadCovers(5n, 6n)).toBe(false);
    expect(indexReadCovers(null, 0n)).toBe(false);
    expect(indexReadCovers(null, null)).toBe(true);
  });
});
