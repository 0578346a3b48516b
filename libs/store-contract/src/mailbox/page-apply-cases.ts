import { CursorExpiredError, DAY_MS, FrontierGapError, InvalidInputError, MAX_MAILBOX_OFFSET, entryExpiry } from '@qim/store-core';
import type { DispatchPage, MailboxEvent } from '@qim/store-core';
import { expectStoreError } from '../support/expect-error';
import { randomIds } from '../support/ids';
import { WEEK_MS, seqAt, startOf, topOf } from './mailbox-fixtures';
import type { MailboxContext } from './mailbox-fixtures';
import { applied, dispatchTo, dispatchToNew, entriesOf, frontierOf, inboxOf, labelOf, pageOf } from './page-fixtures';

/** `applyPage` and `frontier`: entries at the record's seq, the frontier, page shape, contiguity, pages already applied. */
export function pageApplyCases(ctx: () => MailboxContext): void {
  describe('applyPage and frontier', () => {
    it('writes every recipient’s entry at composeMailboxSeq(epoch, offset) and moves the frontier to toOffset', async () => {
      const c = ctx();
      const store = await c.open();
      expect(await store.frontier()).toEqual({ offset: null });
      const [u1, u2, u3] = randomIds(3);
      const d1 = dispatchTo(c, [u1!, u2!]);
      const d2 = dispatchTo(c, [u2!, u3!], { createdAt: c.time.now() - 1_000n });
      const report = await store.applyPage(
        pageOf(0n, 2n, [
          [0n, d1],
          [2n, d2],
        ]),
      );
      expect(report).toEqual({ frontier: 2n, wrote: true, outcomes: [applied(0n, d1), applied(2n, d2)], entriesWritten: 4, entriesExpired: 0 });
      expect(await store.frontier()).toEqual({ offset: 2n });

      const page = await store.rangeScan(c.tenantId, u2!, startOf(store), seqAt(store, 2n), 100);
      expect(page).toMatchObject({ next: seqAt(store, 2n), hasMore: false });
      expect(page.entries.map((e) => [e.tenantId, e.userId, e.mailboxSeq, e.createdAt, e.expiresAt])).toEqual([
        [c.tenantId, u2, seqAt(store, 0n), d1.createdAt, entryExpiry(d1.createdAt, WEEK_MS)],
        [c.tenantId, u2, seqAt(store, 2n), d2.createdAt, entryExpiry(d2.createdAt, WEEK_MS)],
      ]);
      const plain = (evs: readonly MailboxEvent[]) => evs.map((ev) => [ev.ordinal, ev.eventId, Buffer.from(ev.payload).toString('hex')]);
      expect(page.entries.map((e) => plain(e.events))).toEqual([plain(d1.events), plain(d2.events)]);
      expect(await inboxOf(c, store, u1!)).toEqual([[0n, labelOf(d1)]]);
      expect(await inboxOf(c, store, u3!)).toEqual([[2n, labelOf(d2)]]);

      const d3 = dispatchTo(c, [u1!]);
      expect(await store.applyPage(pageOf(3n, 5n, [[4n, d3]]))).toEqual({
        frontier: 5n,
        wrote: true,
        outcomes: [applied(4n, d3)],
        entriesWritten: 1,
        entriesExpired: 0,
      });
      expect(await inboxOf(c, store, u1!)).toEqual([
        [0n, labelOf(d1)],
        [4n, labelOf(d3)],
      ]);
      expect(await frontierOf(store)).toBe(5n);
    });

    it('offsets of the range without a record (dead-lettered) and record-less pages still move the frontier', async () => {
      const c = ctx();
      const store = await c.open();
      const d = dispatchToNew(c, 2);
      expect(await store.applyPage(pageOf(0n, 4n, [[2n, d]]))).toMatchObject({ frontier: 4n, wrote: true, entriesWritten: 2 });
      expect(await store.applyPage(pageOf(5n, 7n))).toEqual({ frontier: 7n, wrote: true, outcomes: [], entriesWritten: 0, entriesExpired: 0 });
      expect(await frontierOf(store)).toBe(7n);
      const next = dispatchToNew(c, 1);
      expect((await store.applyPage(pageOf(8n, 8n, [[8n, next]]))).outcomes).toEqual([applied(8n, next)]);
      expect(await inboxOf(c, store, next.recipients[0]!, seqAt(store, 8n))).toEqual([[8n, labelOf(next)]]);
    });

    it('a null frontier accepts any first offset; from then on pages must be contiguous', async () => {
      const c = ctx();
      const store = await c.open();
      const d = dispatchToNew(c, 1);
      expect(await store.applyPage(pageOf(1_000n, 1_001n, [[1_000n, d]]))).toMatchObject({ frontier: 1_001n, wrote: true });
      expect(await inboxOf(c, store, d.recipients[0]!)).toEqual([[1_000n, labelOf(d)]]);
      await expectStoreError(store.applyPage(pageOf(1_003n, 1_003n)), FrontierGapError);
      expect(await store.applyPage(pageOf(1_002n, 1_003n))).toMatchObject({ frontier: 1_003n, wrote: true });
    });

    it('a page starting above F + 1 → FrontierGap; nothing of it is written and the frontier stays', async () => {
      const c = ctx();
      const store = await c.open();
      await store.applyPage(pageOf(0n, 4n, [[1n, dispatchToNew(c, 1)]]));
      const d = dispatchToNew(c, 2);
      await expectStoreError(store.applyPage(pageOf(6n, 8n, [[6n, d]])), FrontierGapError);
      expect(await frontierOf(store)).toBe(4n);
      for (const u of d.recipients) expect(await entriesOf(c, store, u)).toEqual([]);
      expect(await c.harness.dispatchIndexed(store.shardEpoch, d.dispatchId)).toBe(false);
      expect(await store.applyPage(pageOf(5n, 8n, [[6n, d]]))).toMatchObject({ frontier: 8n, outcomes: [applied(6n, d)], entriesWritten: 2 });
    });

    it('a badly shaped page → InvalidInput; nothing of it is written and the frontier stays', async () => {
      const c = ctx();
      const store = await c.open();
      await store.applyPage(pageOf(0n, 4n, [[0n, dispatchToNew(c, 1)]]));
      const good = dispatchToNew(c, 2);
      const other = dispatchToNew(c, 1);
      const bad: [string, DispatchPage][] = [
        ['inverted range', pageOf(6n, 5n, [[5n, good]])],
        ['negative start', pageOf(-1n, 5n, [[5n, good]])],
        [
          'records out of order',
          pageOf(5n, 8n, [
            [5n, good],
            [7n, other],
            [6n, dispatchToNew(c, 1)],
          ]),
        ],
        [
          'a repeated offset',
          pageOf(5n, 8n, [
            [5n, good],
            [6n, other],
            [6n, dispatchToNew(c, 1)],
          ]),
        ],
        [
          'a record below the range',
          pageOf(5n, 8n, [
            [4n, other],
            [5n, good],
          ]),
        ],
        [
          'a record above the range',
          pageOf(5n, 8n, [
            [5n, good],
            [9n, other],
          ]),
        ],
        [
          'a record of another shard',
          pageOf(5n, 8n, [
            [5n, good],
            [6n, dispatchToNew(c, 1, { shard: (c.shardEpoch.shard + 1) % 65_536 })],
          ]),
        ],
        ['a range beyond the epoch’s offsets', pageOf(5n, MAX_MAILBOX_OFFSET + 1n, [[5n, good]])],
      ];
      for (const [what, page] of bad) {
        await expectStoreError(store.applyPage(page), InvalidInputError).catch((e: unknown) => {
          throw new Error(`${what}: ${e instanceof Error ? e.message : String(e)}`);
        });
        expect(await frontierOf(store)).toBe(4n);
        for (const u of [...good.recipients, ...other.recipients]) expect(await entriesOf(c, store, u)).toEqual([]);
        expect(await c.harness.dispatchIndexed(store.shardEpoch, good.dispatchId)).toBe(false);
      }
    });

    it('a page entirely at or below the frontier writes nothing (wrote = false), whatever it carries', async () => {
      const c = ctx();
      const store = await c.open();
      const d = dispatchToNew(c, 2, { label: 'as applied' });
      await store.applyPage(pageOf(0n, 4n, [[2n, d]]));
      const changed = dispatchTo(c, d.recipients, { dispatchId: d.dispatchId, label: 'changed since' });
      const fresh = dispatchToNew(c, 1);
      const behind = { frontier: 4n, wrote: false, outcomes: [], entriesWritten: 0, entriesExpired: 0 };
      expect(
        await store.applyPage(
          pageOf(0n, 4n, [
            [2n, changed],
            [3n, fresh],
          ]),
        ),
      ).toEqual(behind);
      expect(
        await store.applyPage(
          pageOf(2n, 3n, [
            [2n, changed],
            [3n, fresh],
          ]),
        ),
      ).toEqual(behind);
      for (const u of d.recipients) expect(await inboxOf(c, store, u)).toEqual([[2n, 'as applied']]);
      expect(await entriesOf(c, store, fresh.recipients[0]!)).toEqual([]);
      expect(await c.harness.dispatchIndexed(store.shardEpoch, fresh.dispatchId)).toBe(false);
      expect(await frontierOf(store)).toBe(4n);
    });

    it('a page overlapping the frontier is applied whole: records at or below F rewrite the same entries', async () => {
      const c = ctx();
      const store = await c.open();
      const d = dispatchToNew(c, 2);
      await store.applyPage(pageOf(0n, 4n, [[2n, d]]));
      const before = await entriesOf(c, store, d.recipients[0]!);
      const e = dispatchToNew(c, 1);
      expect(
        await store.applyPage(
          pageOf(2n, 6n, [
            [2n, d],
            [5n, e],
          ]),
        ),
      ).toEqual({
        frontier: 6n,
        wrote: true,
        outcomes: [applied(2n, d), applied(5n, e)],
        entriesWritten: 3,
        entriesExpired: 0,
      });
      expect(await entriesOf(c, store, d.recipients[0]!)).toEqual(before);
      expect(await inboxOf(c, store, e.recipients[0]!)).toEqual([[5n, labelOf(e)]]);
    });

    it('a dispatch whose entries are already expired records only their proofs: entriesExpired, CursorExpired below it', async () => {
      const c = ctx();
      const store = await c.open();
      const old = dispatchToNew(c, 2, { createdAt: c.time.now() - 10n * DAY_MS });
      const live = dispatchTo(c, [old.recipients[0]!]);
      expect(
        await store.applyPage(
          pageOf(0n, 3n, [
            [1n, old],
            [3n, live],
          ]),
        ),
      ).toEqual({
        frontier: 3n,
        wrote: true,
        outcomes: [applied(1n, old), applied(3n, live)],
        entriesWritten: 1,
        entriesExpired: 2,
      });
      const err = await expectStoreError(store.rangeScan(c.tenantId, old.recipients[0]!, startOf(store), topOf(store), 10), CursorExpiredError);
      expect(err.boundary).toBe(seqAt(store, 1n));
      expect((await store.rangeScan(c.tenantId, old.recipients[0]!, seqAt(store, 1n), seqAt(store, 3n), 10)).entries.map((x) => x.mailboxSeq)).toEqual([
        seqAt(store, 3n),
      ]);
      expect(await c.harness.dispatchIndexed(store.shardEpoch, old.dispatchId)).toBe(false);
    });
  });
}
