import { CorruptEntryError, DAY_MS, InvalidInputError } from '@qim/store-core';
import type { MailboxEntry, MailboxStore, RangeScanPage } from '@qim/store-core';
import { expectStoreError } from '../support/expect-error';
import { randomId } from '../support/ids';
import { entryInput, event, seqAt, startOf, topOf } from './mailbox-fixtures';
import type { MailboxContext } from './mailbox-fixtures';

const seqs = (p: RangeScanPage): bigint[] => p.entries.map((e: MailboxEntry) => e.mailboxSeq);
const at = (store: MailboxStore, ...offsets: number[]): bigint[] => offsets.map((o) => seqAt(store, BigInt(o)));

/** `rangeScan`'s byte budget: the cut it makes, and that it bounds what the store reads. */
export function scanBudgetCases(ctx: () => MailboxContext): void {
  describe('rangeScan byte budget (maxBytes)', () => {
    it('cuts on seq boundaries by event payload bytes: the first entry whole, then strictly within the budget', async () => {
      const c = ctx();
      const store = await c.open();
      const u = randomId();
      const now = c.time.now();
      const sizes = [300, 200, 100, 50];
      await store.appendBatch(
        sizes.map((n, i) => entryInput(c.tenantId, u, seqAt(store, BigInt(i + 1)), now, [event(0, 'a'.repeat(n - 10)), event(1, 'b'.repeat(10))])),
      );
      const top = topOf(store);
      const page = (maxBytes: number, limit = 500) => store.rangeScan(c.tenantId, u, startOf(store), top, limit, maxBytes);

      const one = await page(1);
      expect(seqs(one)).toEqual(at(store, 1));
      expect(one).toMatchObject({ next: seqAt(store, 1n), hasMore: true });
      expect(seqs(await page(499))).toEqual(at(store, 1));
      expect(seqs(await page(500))).toEqual(at(store, 1, 2));
      expect(seqs(await page(649))).toEqual(at(store, 1, 2, 3));
      expect(await page(650)).toMatchObject({ next: top, hasMore: false });
      expect(seqs(await page(650))).toEqual(at(store, 1, 2, 3, 4));
      expect(seqs(await page(10_000, 4))).toEqual(at(store, 1, 2));
      const rest = await store.rangeScan(c.tenantId, u, seqAt(store, 2n), top, 500, 100);
      expect(seqs(rest)).toEqual(at(store, 3));
      expect(rest).toMatchObject({ next: seqAt(store, 3n), hasMore: true });
      for (const bad of [0, -1, 1.5]) await expectStoreError(page(bad), InvalidInputError);
    });

    it('merges entries of several days in seq order under the budget', async () => {
      const c = ctx();
      const store = await c.open();
      const u = randomId();
      const now = c.time.now();
      const created = [now - DAY_MS, now, now - DAY_MS, now, now - 2n * DAY_MS];
      await store.appendBatch(created.map((t, i) => entryInput(c.tenantId, u, seqAt(store, BigInt(i + 1)), t, [event(0, 'x'.repeat(100))])));
      const top = topOf(store);
      const walked: bigint[] = [];
      let after = startOf(store);
      for (let i = 0; i < 10; i++) {
        const p = await store.rangeScan(c.tenantId, u, after, top, 500, 250);
        walked.push(...seqs(p));
        after = p.next;
        if (!p.hasMore) break;
      }
      expect(walked).toEqual(at(store, 1, 2, 3, 4, 5));
      expect(after).toBe(top);
    });

    it('bounds what the store reads: with limit 500 and maxBytes 1 it reads the first entry and the one that does not fit, never past them', async () => {
      const c = ctx();
      const store = await c.open();
      const u = randomId();
      const now = c.time.now();
      const big = 'z'.repeat(32 * 1024);
      await store.appendBatch(Array.from({ length: 12 }, (_, i) => entryInput(c.tenantId, u, seqAt(store, BigInt(i + 1)), now, [event(0, big)])));
      // A store that read `limit` whole entries (or any more than two) would decode this one and fail.
      await c.harness.corruptEntry(c.tenantId, u, seqAt(store, 3n));
      const top = topOf(store);

      const first = await store.rangeScan(c.tenantId, u, startOf(store), top, 500, 1);
      expect(seqs(first)).toEqual(at(store, 1));
      expect(first).toMatchObject({ next: seqAt(store, 1n), hasMore: true });
      // A page that reads the damaged entry (the one that ends the page after entry 2, or its first) refuses it, never skips it.
      await expectStoreError(store.rangeScan(c.tenantId, u, first.next, top, 500, 1), CorruptEntryError);
      await expectStoreError(store.rangeScan(c.tenantId, u, seqAt(store, 2n), top, 500, 1), CorruptEntryError);
      await expectStoreError(store.rangeScan(c.tenantId, u, startOf(store), top, 500, 2 * big.length), CorruptEntryError);
      expect(seqs(await store.rangeScan(c.tenantId, u, seqAt(store, 3n), top, 500, 1))).toEqual(at(store, 4));
    });
  });
}
