import { CursorExpiredError, DAY_MS, InvalidInputError, dayOf, maxRetentionDays } from '@qim/store-core';
import { expectStoreError } from '../support/expect-error';
import { randomId } from '../support/ids';
import { TIMED_CASE_TIMEOUT_MS } from '../support/time-control';
import { entryInput, seqAt, startOf, topOf } from './mailbox-fixtures';
import type { MailboxContext } from './mailbox-fixtures';

/**
 * Issue 10 item 4: the 32-item active ledger bounds the retention. The largest retention store-core
 * allows (`maxRetentionDays(0)` days, synchronised clocks) must work with a live entry on every day
 * it keeps; one day more must be refused when the store is opened (never a stalled lane later).
 */
export function retentionBoundCases(ctx: () => MailboxContext): void {
  describe('retention bound of the active ledger', () => {
    it('a retention one day longer than the ledger holds is refused when the store is opened', async () => {
      const c = ctx();
      const days = maxRetentionDays(0n);
      expect(days).toBe(31); // 32 ledger items − 1
      await expectStoreError(c.open({ entryRetentionMs: BigInt(days + 1) * DAY_MS }), InvalidInputError);
    });

    it(
      'the largest retention holds a live entry on every day it keeps, and keeps working as days pass',
      async () => {
        const c = ctx();
        const days = maxRetentionDays(0n);
        const retentionMs = BigInt(days) * DAY_MS;
        const store = await c.open({ entryRetentionMs: retentionMs });
        const u = randomId();
        const now = c.time.now();
        const today = BigInt(dayOf(now)) * DAY_MS;
        // one entry created on each of the days + 1 calendar days that are all still live now
        const inputs = Array.from({ length: days + 1 }, (_, i) =>
          entryInput(c.tenantId, u, seqAt(store, BigInt(i + 1)), today - BigInt(days - i) * DAY_MS + 1_000n),
        );
        expect(await store.appendBatch(inputs)).toEqual({ written: days + 1, expired: 0 });
        const page = await store.rangeScan(c.tenantId, u, startOf(store), topOf(store), 1_000);
        expect(page.entries).toHaveLength(days + 1);
        expect(page).toMatchObject({ next: topOf(store), hasMore: false });
        if (!c.time.manual) return; // real time: the days cannot be made to pass
        // more than `days` further days of appends, one a day: the ledger never overflows
        let next = BigInt(days + 2);
        for (let d = 1; d <= days + 3; d++) {
          await c.time.reach(today + BigInt(d) * DAY_MS + 3_600_000n);
          expect(await store.appendBatch([entryInput(c.tenantId, u, seqAt(store, next), c.time.now())])).toEqual({ written: 1, expired: 0 });
          next += 1n;
        }
        // the first batch and the first two daily entries have expired (exact gap), the other daily ones read
        const err = await expectStoreError(store.rangeScan(c.tenantId, u, startOf(store), topOf(store), 1_000), CursorExpiredError);
        expect(err.boundary).toBe(seqAt(store, BigInt(days + 3)));
        const recent = await store.rangeScan(c.tenantId, u, err.boundary, topOf(store), 1_000);
        expect(recent.entries.map((e) => e.mailboxSeq)).toEqual(Array.from({ length: days + 1 }, (_, i) => seqAt(store, BigInt(days + 4 + i))));
      },
      TIMED_CASE_TIMEOUT_MS,
    );
  });
}
