import { runBounded } from './bounded-calls';
import { MetaCache, NO_KNOWN_META } from './meta-cache';

describe('runBounded', () => {
  it('keeps at most `limit` calls in flight and answers in input order', async () => {
    let inFlight = 0;
    let peak = 0;
    const out = await runBounded([5, 1, 4, 2, 3, 0], 2, async (ms) => {
      peak = Math.max(peak, ++inFlight);
      await new Promise((r) => setTimeout(r, ms));
      inFlight--;
      return ms * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30, 0]);
    expect(peak).toBe(2);
  });

  it('starts nothing after the first failure and throws it', async () => {
    const started: number[] = [];
    await expect(
      runBounded([1, 2, 3, 4], 1, async (n) => {
        started.push(n);
        if (n === 2) throw new Error('boom');
        return n;
      }),
    ).rejects.toThrow('boom');
    expect(started).toEqual([1, 2]);
  });
});

describe('MetaCache', () => {
  it('drops the oldest entry beyond its capacity; a set refreshes an entry', () => {
    const cache = new MetaCache(2);
    cache.set('a', NO_KNOWN_META);
    cache.set('b', NO_KNOWN_META);
    cache.set('a', NO_KNOWN_META);
    cache.set('c', NO_KNOWN_META);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([NO_KNOWN_META, undefined, NO_KNOWN_META]);
    cache.forget('a');
    expect(cache.get('a')).toBeUndefined();
  });
});
