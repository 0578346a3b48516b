import fc from 'fast-check';
import { InvalidInputError } from '../errors/domain-errors';
import { MAX_LEDGER_ITEMS } from '../codecs/codec-limits';
import { DAY_MS, consumeExpired, dayOf, entryExpiry, registerDay } from './retention-ledger';
import type { LedgerItem } from '../codecs/active-ledger';
import { TTL_GRANULARITY_MS, checkMailboxRetention, maxRetentionDays, readerExpiryMarginMs } from './retention-bounds';

describe('reader expiry margin (issue 10 item 3)', () => {
  it('is one TTL second plus twice the clock-skew allowance (writer vs reader, coordinator vs replica)', () => {
    expect(TTL_GRANULARITY_MS).toBe(1_000n);
    expect(readerExpiryMarginMs(0n)).toBe(1_000n);
    expect(readerExpiryMarginMs(1_500n)).toBe(4_000n);
  });

  it('refuses a negative allowance', () => {
    expect(() => readerExpiryMarginMs(-1n)).toThrow(InvalidInputError);
  });
});

describe('largest retention the 32-item ledger can hold (issue 10 item 4)', () => {
  it('31 days on synchronised clocks, 30 with any skew up to a day', () => {
    expect(maxRetentionDays(0n)).toBe(MAX_LEDGER_ITEMS - 1);
    expect(maxRetentionDays(1n)).toBe(MAX_LEDGER_ITEMS - 2);
    expect(maxRetentionDays(1_000n)).toBe(30);
    expect(maxRetentionDays(DAY_MS)).toBe(30);
    expect(maxRetentionDays(DAY_MS + 1n)).toBe(29);
  });

  it('checkMailboxRetention accepts the largest value and refuses one millisecond more, naming it', () => {
    for (const skew of [0n, 1_000n]) {
      const max = BigInt(maxRetentionDays(skew)) * DAY_MS;
      expect(() => checkMailboxRetention(max, skew)).not.toThrow();
      expect(() => checkMailboxRetention(max + 1n, skew)).toThrow(InvalidInputError);
      expect(() => checkMailboxRetention(max + 1n, skew)).toThrow(new RegExp(`at most ${maxRetentionDays(skew)} days`));
    }
  });

  it('at the largest retention, appending every day (entries up to the skew in the future) never exceeds the ledger', () => {
    fc.assert(
      fc.property(fc.constantFrom(0n, 1_000n, 60_000n), fc.integer({ min: 0, max: 86_399 }), fc.integer({ min: 40, max: 80 }), (skew, startSec, days) => {
        const retention = BigInt(maxRetentionDays(skew)) * DAY_MS;
        let ledger: LedgerItem[] = [];
        let now = 20_000n * DAY_MS + BigInt(startSec) * 1000n;
        for (let step = 0; step < days * 4; step++) {
          // every 6 h: an entry created now and one created `skew` ahead (a writer clock ahead of ours)
          for (const createdAt of [now, now + skew]) {
            ledger = consumeExpired(ledger, now).ledger;
            ledger = registerDay(ledger, { day: dayOf(createdAt), maxSeq: BigInt(step), expiresAt: entryExpiry(createdAt, retention) });
            expect(ledger.length).toBeLessThanOrEqual(MAX_LEDGER_ITEMS);
          }
          now += DAY_MS / 4n;
        }
      }),
      { numRuns: 30 },
    );
  });

  it('one day more overflows the ledger (the bound is tight)', () => {
    const retention = BigInt(maxRetentionDays(0n) + 1) * DAY_MS;
    let ledger: LedgerItem[] = [];
    const start = 20_000n * DAY_MS;
    expect(() => {
      for (let d = 0n; d < 40n; d++) {
        const now = start + d * DAY_MS;
        ledger = consumeExpired(ledger, now).ledger;
        ledger = registerDay(ledger, { day: dayOf(now), maxSeq: d, expiresAt: entryExpiry(now, retention) });
      }
    }).toThrow(/active ledger would hold 33 items/);
  });
});
