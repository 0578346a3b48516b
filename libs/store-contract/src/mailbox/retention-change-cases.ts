import { CursorExpiredError, DAY_MS, dayOf, entryExpiry } from '@qim/store-core';
import { expectStoreError } from '../support/expect-error';
import { randomId } from '../support/ids';
import { TIMED_CASE_TIMEOUT_MS } from '../support/time-control';
import { WEEK_MS, entryInput, retentionExpiringYesterdayIn, seqAt, topOf } from './mailbox-fixtures';
import type { MailboxContext } from './mailbox-fixtures';
import { dispatchTo, pageOf } from './page-fixtures';

/** How far ahead the shorter retention's "yesterday" bucket expires. */
const SOON_MS = 3_000n;

/**
 * Issue 27 (4): a retention decrease during a rolling restart — two stores with different retention
 * on one storage. The shorter one brings a shared day's expiry forward (`registerDay` keeps the
 * earlier one); the longer one may still believe the later expiry (its registered-days / warm-day
 * memory). Whatever it believes, it must never write an entry into a day an inspection already
 * consumed: that entry would outlive every ledger item and, once it expires, leave a hole no cursor
 * sees.
 */
export function retentionChangeCases(ctx: () => MailboxContext): void {
  describe('a retention decrease while both retentions write', () => {
    it(
      "a shorter retention never brings a shared day to expire within reach of the longer one's fast path: that entry is an expired replay",
      async () => {
        const c = ctx();
        const plan = retentionExpiringYesterdayIn(c.time.now(), SOON_MS);
        const long = await c.open({ entryRetentionMs: WEEK_MS });
        const short = await c.open({ entryRetentionMs: plan.retentionMs });
        const u = randomId();
        await long.appendBatch([entryInput(c.tenantId, u, seqAt(long, 10n), plan.yesterday)]);
        await long.appendBatch([entryInput(c.tenantId, u, seqAt(long, 11n), plan.yesterday)]);
        // the day would expire in seconds: registering that would let the longer store's fast path write into it after its consumption
        expect(await short.appendBatch([entryInput(c.tenantId, u, seqAt(short, 12n), plan.yesterday)])).toEqual({ written: 0, expired: 1 });
        await c.time.reach(entryExpiry(plan.yesterday, plan.retentionMs));

        expect(await long.appendBatch([entryInput(c.tenantId, u, seqAt(long, 13n), plan.yesterday)])).toEqual({ written: 1, expired: 0 });
        for (const s of [short, long]) {
          const err = await expectStoreError(s.rangeScan(c.tenantId, u, seqAt(s, 11n), topOf(s), 100), CursorExpiredError);
          expect(err.boundary).toBe(seqAt(s, 12n));
          expect((await s.rangeScan(c.tenantId, u, seqAt(s, 12n), topOf(s), 100)).entries.map((e) => e.mailboxSeq)).toEqual([seqAt(s, 13n)]);
        }
        if (!c.time.manual) return;
        await c.time.reach(entryExpiry(plan.yesterday, WEEK_MS));
        const err = await expectStoreError(long.rangeScan(c.tenantId, u, seqAt(long, 12n), topOf(long), 100), CursorExpiredError);
        expect(err.boundary).toBe(seqAt(long, 13n));
      },
      TIMED_CASE_TIMEOUT_MS,
    );

    it('the longer store learns a lowered expiry before its remembered one: no page lands in the consumed day unseen (manual clock)', async () => {
      const c = ctx();
      // Days pass in this case: a real-time backend runs it in its own spec with an injected store clock.
      if (!c.time.manual) return;
      const todayStart = BigInt(dayOf(c.time.now())) * DAY_MS;
      const yesterday = todayStart - DAY_MS + 1_000n;
      const long = await c.open({ entryRetentionMs: WEEK_MS });
      const short = await c.open({ entryRetentionMs: 3n * DAY_MS });
      const u = randomId();
      // the longer store registers the day, then a page raises only its proof (a fast / plain path)
      await long.applyPage(pageOf(1n, 1n, [[1n, dispatchTo(c, [u], { createdAt: yesterday })]]));
      await long.applyPage(pageOf(2n, 2n, [[2n, dispatchTo(c, [u], { createdAt: yesterday })]]));
      // the shorter retention lowers the day's expiry (days ahead: a legal lowering)
      expect(await short.appendBatch([entryInput(c.tenantId, u, seqAt(short, 3n), yesterday)])).toEqual({ written: 1, expired: 0 });
      await c.time.reach(entryExpiry(yesterday, 3n * DAY_MS));
      const consumed = await expectStoreError(short.rangeScan(c.tenantId, u, seqAt(short, 2n), topOf(short), 100), CursorExpiredError);
      expect(consumed.boundary).toBe(seqAt(short, 3n));

      // a later page of the longer store carries another entry of the consumed day
      await long.applyPage(pageOf(3n, 4n, [[4n, dispatchTo(c, [u], { createdAt: yesterday })]]));
      await c.time.reach(entryExpiry(yesterday, WEEK_MS));
      for (const s of [short, long]) {
        const err = await expectStoreError(s.rangeScan(c.tenantId, u, seqAt(s, 3n), topOf(s), 100), CursorExpiredError);
        expect(err.boundary).toBe(seqAt(s, 4n));
      }
    });
  });
}
