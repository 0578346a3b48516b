import { DAY_MS, dispatchDedupeExpiry } from '@qim/store-core';
import { randomId } from '../support/ids';
import { TIMED_CASE_TIMEOUT_MS } from '../support/time-control';
import type { MailboxContext } from './mailbox-fixtures';
import {
  actualInboxes,
  applied,
  conflict,
  conflictingWith,
  dispatchTo,
  dispatchToNew,
  duplicate,
  expectedInboxes,
  frontierOf,
  inboxOf,
  labelOf,
  pageOf,
} from './page-fixtures';

/** Real-time dedupe window of the late-duplicate case, and how early before its end the duplicate arrives (server TTLs are whole seconds). */
const REAL_WINDOW_MS = 3_000n;
const REAL_EARLY_MS = 1_500n;

/** Duplicate records of one dispatch id: one entry per recipient at the lowest offset; conflicts write nothing; memory ends at createdAt + dispatchDedupeMs. */
export function pageDuplicateCases(ctx: () => MailboxContext): void {
  describe('applyPage duplicates', () => {
    it('one dispatch at two offsets of one page → one entry per recipient at the lowest offset; the later sight is a duplicate', async () => {
      const c = ctx();
      const store = await c.open();
      const d = dispatchToNew(c, 3);
      const e = dispatchTo(c, [d.recipients[1]!, randomId()]);
      const records = [
        [1n, d],
        [2n, e],
        [3n, d],
      ] as const;
      expect(await store.applyPage(pageOf(0n, 4n, records))).toEqual({
        frontier: 4n,
        wrote: true,
        outcomes: [applied(1n, d), applied(2n, e), duplicate(3n, d, 1n)],
        entriesWritten: 5,
        entriesExpired: 0,
      });
      expect(await actualInboxes(c, store, records)).toEqual(expectedInboxes(records));
      expect(await inboxOf(c, store, d.recipients[1]!)).toEqual([
        [1n, labelOf(d)],
        [2n, labelOf(e)],
      ]);
    });

    it('a dispatch seen again in later pages is a duplicate of its first offset, however often it comes', async () => {
      const c = ctx();
      const store = await c.open();
      const d = dispatchToNew(c, 2);
      await store.applyPage(pageOf(0n, 2n, [[1n, d]]));
      expect(await store.applyPage(pageOf(3n, 5n, [[4n, d]]))).toEqual({
        frontier: 5n,
        wrote: true,
        outcomes: [duplicate(4n, d, 1n)],
        entriesWritten: 0,
        entriesExpired: 0,
      });
      expect(
        await store.applyPage(
          pageOf(6n, 8n, [
            [6n, d],
            [8n, d],
          ]),
        ),
      ).toEqual({
        frontier: 8n,
        wrote: true,
        outcomes: [duplicate(6n, d, 1n), duplicate(8n, d, 1n)],
        entriesWritten: 0,
        entriesExpired: 0,
      });
      for (const u of d.recipients) expect(await inboxOf(c, store, u)).toEqual([[1n, labelOf(d)]]);
      expect(await c.harness.dispatchIndexed(store.shardEpoch, d.dispatchId)).toBe(true);
    });

    it('the same dispatch id with other content → conflict: nothing written for it, the frontier still moves', async () => {
      const c = ctx();
      const store = await c.open();
      const d = dispatchToNew(c, 2, { label: 'original' });
      await store.applyPage(pageOf(0n, 2n, [[1n, d]]));
      const other = conflictingWith(c, d);
      const e = dispatchToNew(c, 1);
      expect(
        await store.applyPage(
          pageOf(3n, 6n, [
            [3n, other],
            [4n, e],
            [5n, d],
          ]),
        ),
      ).toEqual({
        frontier: 6n,
        wrote: true,
        outcomes: [conflict(3n, other, 1n), applied(4n, e), duplicate(5n, d, 1n)],
        entriesWritten: 1,
        entriesExpired: 0,
      });
      for (const u of d.recipients) expect(await inboxOf(c, store, u)).toEqual([[1n, 'original']]);
      for (const u of other.recipients.filter((x) => !d.recipients.includes(x))) expect(await inboxOf(c, store, u)).toEqual([]);

      const f = dispatchToNew(c, 1, { label: 'first content' });
      const f2 = conflictingWith(c, f);
      expect(
        await store.applyPage(
          pageOf(7n, 9n, [
            [7n, f],
            [8n, f2],
          ]),
        ),
      ).toEqual({
        frontier: 9n,
        wrote: true,
        outcomes: [applied(7n, f), conflict(8n, f2, 7n)],
        entriesWritten: 1,
        entriesExpired: 0,
      });
      expect(await inboxOf(c, store, f.recipients[0]!)).toEqual([[7n, 'first content']]);
      for (const u of f2.recipients) expect(await inboxOf(c, store, u)).toEqual([]);
      expect(await frontierOf(store)).toBe(9n);
    });

    it(
      'a late duplicate just before createdAt + dispatchDedupeMs is still a duplicate (no second entry); the memory ends at that instant',
      async () => {
        const c = ctx();
        const window = c.time.manual ? c.dedupeMs : REAL_WINDOW_MS;
        const store = await c.open({ dispatchDedupeMs: window, entryRetentionMs: window + 2n * DAY_MS });
        const d = dispatchToNew(c, 2);
        const end = dispatchDedupeExpiry(d.createdAt, window);
        await store.applyPage(pageOf(0n, 0n, [[0n, d]]));
        expect(await c.harness.dispatchIndexed(store.shardEpoch, d.dispatchId)).toBe(true);

        if (c.time.clock !== null) c.time.clock.set(end - 1n);
        else if (end - REAL_EARLY_MS > c.time.now()) await c.time.pass(end - REAL_EARLY_MS - c.time.now());
        expect(await c.harness.dispatchIndexed(store.shardEpoch, d.dispatchId)).toBe(true);
        expect(await store.applyPage(pageOf(1n, 1n, [[1n, d]]))).toEqual({
          frontier: 1n,
          wrote: true,
          outcomes: [duplicate(1n, d, 0n)],
          entriesWritten: 0,
          entriesExpired: 0,
        });
        for (const u of d.recipients) expect(await inboxOf(c, store, u)).toEqual([[0n, labelOf(d)]]);

        await c.time.reach(end);
        expect(await c.harness.dispatchIndexed(store.shardEpoch, d.dispatchId)).toBe(false);
      },
      TIMED_CASE_TIMEOUT_MS,
    );
  });
}
