import { CursorExpiredError, entryExpiry } from '@qim/store-core';
import { expectStoreError } from '../support/expect-error';
import { randomId } from '../support/ids';
import { TIMED_CASE_TIMEOUT_MS } from '../support/time-control';
import { entryInput, retentionExpiringYesterdayIn, seqAt, topOf } from './mailbox-fixtures';
import type { MailboxContext } from './mailbox-fixtures';

/** How far ahead the "yesterday" bucket of these cases expires. */
const SOON_MS = 3_000n;
/**
 * The lag of the newer epoch's writer: its day looks three hours from expiry, beyond every
 * backend's fast-path margin (one hour plus the skew allowance), so it raises only its bucket proof.
 */
const WRITER_LAG_MS = 3n * 3_600_000n;

/**
 * Issue 27 (1): one day's entries written in two epochs. A mailbox epoch bump (operator runbook)
 * leaves the ledger item of a day registered with the old epoch's seq; a store of the new epoch that
 * appends more entries of that day takes the fast path and raises only its own epoch's bucket proof.
 * When the day expires, its consumption — read side (inspection in `rangeScan`) or append side (the
 * first entry of a new day) — must take the day's highest proof across every epoch: a cursor inside
 * the new epoch's range below its entries of that day is `CURSOR_EXPIRED`, never a short page.
 */
export function retentionEpochCases(ctx: () => MailboxContext): void {
  describe('retention proofs across epochs', () => {
    async function dayInTwoEpochs(c: MailboxContext) {
      const plan = retentionExpiringYesterdayIn(c.time.now(), SOON_MS);
      const gc = { entryRetentionMs: plan.retentionMs };
      const older = await c.open(gc);
      const newer = await c.open(gc, c.shardEpoch.epoch + 1, undefined, WRITER_LAG_MS);
      const reader = await c.open(gc, c.shardEpoch.epoch + 1);
      const u = randomId();
      // the day is registered in the older epoch …
      expect(await older.appendBatch([entryInput(c.tenantId, u, seqAt(older, 10n), plan.yesterday)])).toEqual({ written: 1, expired: 0 });
      // … and gets more entries in the newer one (its ledger item already covers them)
      expect(await newer.appendBatch([entryInput(c.tenantId, u, seqAt(newer, 5n), plan.yesterday)])).toEqual({ written: 1, expired: 0 });
      return { plan, gc, older, newer, reader, u, expiry: entryExpiry(plan.yesterday, plan.retentionMs) };
    }

    it(
      'read side: the inspection of an expired day takes the highest proof of every epoch',
      async () => {
        const c = ctx();
        const { plan, newer, reader, u, expiry } = await dayInTwoEpochs(c);
        await newer.appendBatch([entryInput(c.tenantId, u, seqAt(newer, 6n), plan.today)]);
        await c.time.reach(expiry);

        const err = await expectStoreError(reader.rangeScan(c.tenantId, u, seqAt(reader, 1n), topOf(reader), 100), CursorExpiredError);
        expect(err.boundary).toBe(seqAt(reader, 5n));
        const page = await reader.rangeScan(c.tenantId, u, seqAt(reader, 5n), topOf(reader), 100);
        expect(page.entries.map((e) => e.mailboxSeq)).toEqual([seqAt(reader, 6n)]);
      },
      TIMED_CASE_TIMEOUT_MS,
    );

    it(
      'append side: the first entry of a new day consumes the expired day at the highest proof of every epoch',
      async () => {
        const c = ctx();
        const { reader, u, expiry } = await dayInTwoEpochs(c);
        await c.time.reach(expiry);
        // a new day's first entry: its ledger must change, so the append consumes the expired day
        expect(await reader.appendBatch([entryInput(c.tenantId, u, seqAt(reader, 7n), c.time.now())])).toEqual({ written: 1, expired: 0 });

        const err = await expectStoreError(reader.rangeScan(c.tenantId, u, seqAt(reader, 1n), topOf(reader), 100), CursorExpiredError);
        expect(err.boundary).toBe(seqAt(reader, 5n));
        const page = await reader.rangeScan(c.tenantId, u, seqAt(reader, 5n), topOf(reader), 100);
        expect(page.entries.map((e) => e.mailboxSeq)).toEqual([seqAt(reader, 7n)]);
      },
      TIMED_CASE_TIMEOUT_MS,
    );
  });
}
