import { CorruptEntryError, InvariantViolationError, U63_MAX } from '@qim/store-core';
import { MAX_SCORE_MS, msScore, u64FromHex16, u64ToHex16 } from './hex64';

describe('hex64', () => {
  it('round-trips the u64 range with fixed width, so string order = numeric order', () => {
    const values = [0n, 1n, 255n, 256n, 0xffff_ffffn, 0x1_0000_0000n, (1n << 53n) + 1n, U63_MAX];
    for (const v of values) {
      const hex = u64ToHex16(v);
      expect(hex).toHaveLength(16);
      expect(u64FromHex16(hex)).toBe(v);
      expect(u64FromHex16(Buffer.from(hex, 'latin1'))).toBe(v);
    }
    const sorted = values.map((v) => u64ToHex16(v));
    expect([...sorted].sort()).toEqual(sorted);
  });

  it('refuses bit 63 on the way out and damage on the way in', () => {
    expect(() => u64ToHex16(U63_MAX + 1n)).toThrow(InvariantViolationError);
    expect(() => u64ToHex16(-1n)).toThrow(InvariantViolationError);
    for (const bad of ['', '123', '000000000000000G', '00000000000000000', 'FFFFFFFFFFFFFFFF', '8000000000000000']) {
      expect(() => u64FromHex16(bad)).toThrow(CorruptEntryError);
    }
  });

  it('scores are exact below 2^52 and clamped above', () => {
    expect(msScore(1_700_000_000_123n)).toBe('1700000000123');
    expect(msScore(MAX_SCORE_MS + 5n)).toBe(MAX_SCORE_MS.toString());
    expect(() => msScore(-1n)).toThrow(InvariantViolationError);
  });
});
