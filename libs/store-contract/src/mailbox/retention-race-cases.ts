import { CursorExpiredError, entryExpiry } from '@qim/store-core';
import { expectStoreError } from '../support/expect-error';
import { randomId } from '../support/ids';
import { TIMED_CASE_TIMEOUT_MS } from '../support/time-control';
import { entryInput, retentionExpiringYesterdayIn, seqAt, startOf, topOf } from './mailbox-fixtures';
import type { MailboxContext } from './mailbox-fixtures';

const SOON_MS = 3_000n;
const USERS = 12;

/**
 * Review case (issue 10): an append and an inspection racing on one user's retention meta. Both
 * consume the same expired day under a compare-and-set of the whole meta (generation included), so
 * neither may overwrite the other (no lost registration, no gap from a stale meta — the ABA a
 * generation-less compare would allow): the gap is exactly the day's proof max seq, and the day the
 * append registered is readable.
 */
export function retentionRaceCases(ctx: () => MailboxContext): void {
  describe('retention meta races', () => {
    it(
      'an append registering a new day races inspections of the same expired day (two stores): exact gap, nothing lost',
      async () => {
        const c = ctx();
        const plan = retentionExpiringYesterdayIn(c.time.now(), SOON_MS);
        const a = await c.open({ entryRetentionMs: plan.retentionMs });
        const b = await c.open({ entryRetentionMs: plan.retentionMs });
        const users = Array.from({ length: USERS }, () => randomId());
        for (const u of users) {
          // the day's ledger item is registered at 10; a later append raises only its proof to 12
          await a.appendBatch([entryInput(c.tenantId, u, seqAt(a, 10n), plan.yesterday)]);
          await a.appendBatch([entryInput(c.tenantId, u, seqAt(a, 12n), plan.yesterday), entryInput(c.tenantId, u, seqAt(a, 11n), plan.yesterday)]);
        }
        await c.time.reach(entryExpiry(plan.yesterday, plan.retentionMs));
        const today = c.time.now();

        const outcomes = await Promise.all(
          users.flatMap((u) => [
            a.appendBatch([entryInput(c.tenantId, u, seqAt(a, 20n), today)]),
            b.rangeScan(c.tenantId, u, startOf(b), topOf(b), 100).then(
              () => 'page',
              (e: unknown) => e,
            ),
            b.appendBatch([entryInput(c.tenantId, u, seqAt(b, 21n), today)]),
            a.rangeScan(c.tenantId, u, seqAt(a, 12n), topOf(a), 100).then((p) => p.entries.length),
          ]),
        );
        users.forEach((_, i) => {
          expect(outcomes[i * 4]).toEqual({ written: 1, expired: 0 });
          const scan = outcomes[i * 4 + 1];
          expect(scan).toBeInstanceOf(CursorExpiredError);
          expect((scan as CursorExpiredError).boundary).toBe(seqAt(a, 12n));
          expect(outcomes[i * 4 + 2]).toEqual({ written: 1, expired: 0 });
        });
        for (const u of users) {
          for (const s of [a, b]) {
            const err = await expectStoreError(s.rangeScan(c.tenantId, u, seqAt(s, 11n), topOf(s), 100), CursorExpiredError);
            expect(err.boundary).toBe(seqAt(s, 12n));
            const page = await s.rangeScan(c.tenantId, u, seqAt(s, 12n), topOf(s), 100);
            expect(page.entries.map((e) => e.mailboxSeq)).toEqual([seqAt(s, 20n), seqAt(s, 21n)]);
          }
        }
      },
      TIMED_CASE_TIMEOUT_MS,
    );
  });
}
