import { InvalidInputError, LEARNT_LEDGER_TRUST_MS } from '@qim/store-core';
import type { RetentionMeta } from '@qim/store-core';
import { RegisteredDays } from './registered-days';

const meta = (items: [number, bigint][]): RetentionMeta => ({
  version: 4,
  generation: 1n,
  inspectedThrough: null,
  gap: null,
  ledger: items.map(([day, expiresAt]) => ({ day, maxSeq: 1n, expiresAt })),
});

describe('RegisteredDays', () => {
  it('covers a registered day only while its expiry is more than the margin away and not later than the entry expiry', () => {
    const days = new RegisteredDays(10);
    days.learn('u', meta([[5, 10_000n]]), 0n);
    expect(days.covers('u', 5, 10_000n, 1_000n, 8_999n)).toBe(true);
    expect(days.covers('u', 5, 10_000n, 1_000n, 9_000n)).toBe(false);
    expect(days.covers('u', 5, 9_999n, 1_000n, 0n)).toBe(false);
    expect(days.covers('u', 6, 10_000n, 1_000n, 0n)).toBe(false);
    expect(days.covers('v', 5, 10_000n, 1_000n, 0n)).toBe(false);
  });

  it('a newer meta replaces what was known; a user without meta is known to have no day', () => {
    const days = new RegisteredDays(10);
    days.learn('u', meta([[5, 10_000n]]), 0n);
    days.learn('u', meta([[6, 20_000n]]), 0n);
    expect(days.covers('u', 5, 10_000n, 0n, 0n)).toBe(false);
    expect(days.covers('u', 6, 20_000n, 0n, 0n)).toBe(true);
    days.learn('w', null, 0n);
    expect(days.knows('w')).toBe(true);
    expect(days.covers('w', 6, 20_000n, 0n, 0n)).toBe(false);
  });

  it('keeps at most `capacity` users, evicting the least recently used', () => {
    const days = new RegisteredDays(2);
    days.learn('a', meta([[1, 100n]]), 0n);
    days.learn('b', meta([[1, 100n]]), 0n);
    expect(days.covers('a', 1, 100n, 0n, 0n)).toBe(true);
    days.learn('c', meta([[1, 100n]]), 0n);
    expect([days.knows('a'), days.knows('b'), days.knows('c'), days.size]).toEqual([true, false, true, 2]);
    expect(() => new RegisteredDays(0)).toThrow(InvalidInputError);
  });

  it('trusts what it learnt for LEARNT_LEDGER_TRUST_MS only: an expiry another writer lowered is read again (issue 27)', () => {
    const days = new RegisteredDays(10);
    const far = 100n * LEARNT_LEDGER_TRUST_MS;
    days.learn('u', meta([[5, far]]), 1_000n);
    expect(days.covers('u', 5, far, 1_000n + LEARNT_LEDGER_TRUST_MS - 1n, 0n)).toBe(true);
    expect(days.covers('u', 5, far, 1_000n + LEARNT_LEDGER_TRUST_MS, 0n)).toBe(false);
    expect(days.covers('u', 5, far, 999n, 0n)).toBe(false);
    days.learn('u', meta([[5, far]]), 1_000n + LEARNT_LEDGER_TRUST_MS);
    expect(days.covers('u', 5, far, 1_000n + LEARNT_LEDGER_TRUST_MS, 0n)).toBe(true);
  });
});
