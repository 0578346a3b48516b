import { LEARNT_LEDGER_TRUST_MS } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import { MetaCache, NO_KNOWN_META } from './meta-cache';

describe('MetaCache with a clock (issue 27: an expiry may move earlier)', () => {
  it('gives an entry out for LEARNT_LEDGER_TRUST_MS after it was set, then forgets it; a set starts the trust again', () => {
    const clock = new ManualClock(1_000n);
    const cache = new MetaCache(10, clock);
    cache.set('a', NO_KNOWN_META);
    clock.advance(LEARNT_LEDGER_TRUST_MS - 1n);
    expect(cache.get('a')).toBe(NO_KNOWN_META);
    clock.advance(1n);
    expect(cache.get('a')).toBeUndefined();
    cache.set('a', NO_KNOWN_META);
    expect(cache.get('a')).toBe(NO_KNOWN_META);
  });
});
