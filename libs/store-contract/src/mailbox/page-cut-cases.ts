import { EpochMismatchError, FrontierGapError, composeMailboxSeq } from '@qim/store-core';
import type { DispatchOutcome, DispatchRecord } from '@qim/store-core';
import { expectStoreError } from '../support/expect-error';
import { randomId } from '../support/ids';
import { startOf, topOf } from './mailbox-fixtures';
import type { MailboxContext } from './mailbox-fixtures';
import { actualInboxes, conflictingWith, dispatchTo, dispatchToNew, expectedInboxes, frontierOf, inboxOf, labelOf, pageOf } from './page-fixtures';

const LAST = 7n;

/** Offsets 0…7: duplicates (in reach of a cut), a conflict, dead-lettered offsets 2 and 7. */
function partition(c: MailboxContext): readonly (readonly [bigint, DispatchRecord])[] {
  const shared = randomId();
  const d1 = dispatchTo(c, [shared, randomId()]);
  const d2 = dispatchTo(c, [shared]);
  const d3 = dispatchToNew(c, 2);
  return [
    [0n, d1],
    [1n, d2],
    [3n, d1],
    [4n, d3],
    [5n, conflictingWith(c, d2)],
    [6n, d3],
  ];
}

/** A page cut anywhere gives what the whole page gives; frontiers are per epoch. */
export function pageCutCases(ctx: () => MailboxContext): void {
  describe('applyPage cuts and epochs', () => {
    it('a page cut at any offset applies exactly as the whole page: same entries, outcomes and frontier', async () => {
      const c = ctx();
      const records = partition(c);
      const whole = await c.open({}, c.shardEpoch.epoch);
      const reference = await whole.applyPage(pageOf(0n, LAST, records));
      expect(reference.frontier).toBe(LAST);
      const entries = await actualInboxes(c, whole, records);
      expect(entries).toEqual(expectedInboxes(records));

      for (let cut = 0n; cut < LAST; cut++) {
        const store = await c.open({}, c.shardEpoch.epoch + 1 + Number(cut));
        const first = await store.applyPage(
          pageOf(
            0n,
            cut,
            records.filter(([o]) => o <= cut),
          ),
        );
        const second = await store.applyPage(
          pageOf(
            cut + 1n,
            LAST,
            records.filter(([o]) => o > cut),
          ),
        );
        const outcomes: DispatchOutcome[] = [...first.outcomes, ...second.outcomes];
        expect({ cut, outcomes, frontier: await frontierOf(store) }).toEqual({ cut, outcomes: reference.outcomes, frontier: LAST });
        expect({ cut, entries: await actualInboxes(c, store, records) }).toEqual({ cut, entries });
        expect(first.entriesWritten + second.entriesWritten).toBe(reference.entriesWritten);
      }
    });

    it('each epoch has its own frontier and dispatch memory; seqs of another epoch → EpochMismatch', async () => {
      const c = ctx();
      const older = await c.open({}, c.shardEpoch.epoch);
      const newer = await c.open({}, c.shardEpoch.epoch + 1);
      const d = dispatchToNew(c, 1);
      await older.applyPage(pageOf(0n, 3n, [[1n, d]]));
      expect(await frontierOf(newer)).toBeNull();
      expect(await c.harness.dispatchIndexed(newer.shardEpoch, d.dispatchId)).toBe(false);

      expect((await newer.applyPage(pageOf(10n, 12n, [[11n, d]]))).outcomes).toEqual([
        { offset: 11n, dispatchId: d.dispatchId, outcome: 'applied', canonicalOffset: 11n },
      ]);
      expect([await frontierOf(older), await frontierOf(newer)]).toEqual([3n, 12n]);
      await expectStoreError(older.applyPage(pageOf(13n, 13n)), FrontierGapError);
      expect(await frontierOf(older)).toBe(3n);

      const u = d.recipients[0]!;
      expect(await inboxOf(c, older, u)).toEqual([[1n, labelOf(d)]]);
      expect(await inboxOf(c, newer, u)).toEqual([[11n, labelOf(d)]]);
      await expectStoreError(newer.rangeScan(c.tenantId, u, startOf(older), topOf(newer), 10), EpochMismatchError);
      await expectStoreError(newer.rangeScan(c.tenantId, u, startOf(newer), composeMailboxSeq(older.shardEpoch.epoch, 3n), 10), EpochMismatchError);
      await expectStoreError(older.rangeScan(c.tenantId, u, startOf(older), composeMailboxSeq(newer.shardEpoch.epoch, 12n), 10), EpochMismatchError);
    });
  });
}
