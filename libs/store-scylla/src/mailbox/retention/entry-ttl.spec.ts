import { entryTtlSeconds } from './entry-ttl';

describe('entryTtlSeconds', () => {
  const server = (nowMs: bigint, ttl: number): bigint => (nowMs / 1000n + BigInt(ttl)) * 1000n;

  it('ends at the whole second at or after the absolute expiry, whenever it is written (a retry never renews)', () => {
    const expiresAt = 1_800_000_003_200n;
    for (const now of [1_800_000_000_000n, 1_800_000_000_999n, 1_800_000_001_500n, 1_800_000_003_199n]) {
      const ttl = entryTtlSeconds(expiresAt, now);
      expect(server(now, ttl)).toBe(1_800_000_004_000n);
      expect(server(now, ttl) >= expiresAt).toBe(true);
    }
  });

  it('is ≤ 0 once the expiry has passed (the entry must not be written)', () => {
    expect(entryTtlSeconds(5_000n, 5_000n)).toBe(0);
    expect(entryTtlSeconds(5_000n, 7_500n)).toBeLessThan(0);
    expect(entryTtlSeconds(5_001n, 5_000n)).toBe(1);
  });

  it('refuses an expiry more than 20 years away', () => {
    expect(() => entryTtlSeconds(700_000_000_000n, 0n)).toThrow('20 years');
  });
});
