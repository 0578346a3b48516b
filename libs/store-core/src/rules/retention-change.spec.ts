import { EXPIRY_LOWERING_FLOOR_MS, LEARNT_LEDGER_TRUST_MS, learntLedgerTrusted, lowersExpiryTooSoon } from './retention-change';
import { appendWithProofs, applyAppend, emptyRetentionMeta } from './retention-meta';
import type { RetentionMeta } from './retention-meta';

const NOW = 1_000_000_000n;
const FAR = NOW + 30n * 86_400_000n;
const meta = (expiresAt: bigint): RetentionMeta => ({ ...emptyRetentionMeta(), generation: 1n, ledger: [{ day: 7, maxSeq: 10n, expiresAt }] });

describe('retention change between writers (issue 27, defect 4)', () => {
  it('the lowering floor lies beyond the trust, the fast-path hour and three one-minute skews', () => {
    expect(EXPIRY_LOWERING_FLOOR_MS).toBeGreaterThan(LEARNT_LEDGER_TRUST_MS + 3_600_000n + 3n * 60_000n);
  });

  it('lowersExpiryTooSoon: only a lowering of a live item to within the floor', () => {
    const live = meta(FAR).ledger;
    expect(lowersExpiryTooSoon(live, { day: 7, seq: 11n, expiresAt: NOW + EXPIRY_LOWERING_FLOOR_MS }, NOW)).toBe(true);
    expect(lowersExpiryTooSoon(live, { day: 7, seq: 11n, expiresAt: NOW + EXPIRY_LOWERING_FLOOR_MS + 1n }, NOW)).toBe(false);
    expect(lowersExpiryTooSoon(live, { day: 7, seq: 11n, expiresAt: FAR }, NOW)).toBe(false);
    expect(lowersExpiryTooSoon(live, { day: 8, seq: 11n, expiresAt: NOW + 1n }, NOW)).toBe(false);
  });

  it('applyAppend and appendWithProofs record such an entry as an expired replay (gap = its seq, item unchanged)', () => {
    const m = meta(FAR);
    const fact = { day: 7, seq: 12n, expiresAt: NOW + 60_000n };
    for (const out of [applyAppend(m, fact, NOW), appendWithProofs(m, fact, NOW, new Map())]) {
      expect(out.expiredReplay).toBe(true);
      expect(out.meta.gap).toBe(12n);
      expect(out.meta.ledger).toEqual(m.ledger);
    }
    const later = { day: 7, seq: 12n, expiresAt: NOW + EXPIRY_LOWERING_FLOOR_MS + 1n };
    expect(applyAppend(m, later, NOW).meta.ledger).toEqual([{ day: 7, maxSeq: 12n, expiresAt: later.expiresAt }]);
  });

  it('learntLedgerTrusted: from the learning instant for LEARNT_LEDGER_TRUST_MS, never for a clock that went back', () => {
    expect(learntLedgerTrusted(NOW, NOW)).toBe(true);
    expect(learntLedgerTrusted(NOW, NOW + LEARNT_LEDGER_TRUST_MS - 1n)).toBe(true);
    expect(learntLedgerTrusted(NOW, NOW + LEARNT_LEDGER_TRUST_MS)).toBe(false);
    expect(learntLedgerTrusted(NOW, NOW - 1n)).toBe(false);
  });
});
