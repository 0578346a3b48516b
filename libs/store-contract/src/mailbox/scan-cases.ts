import { CursorExpiredError, EpochMismatchError, InvalidInputError, composeMailboxSeq, epochStartSeq } from '@qim/store-core';
import { expectStoreError } from '../support/expect-error';
import { randomId } from '../support/ids';
import { entryInput, event, seqAt, startOf, topOf } from './mailbox-fixtures';
import type { MailboxContext } from './mailbox-fixtures';

/** `rangeScan` bounds, paging, epoch checks, and trim. */
export function scanCases(ctx: () => MailboxContext): void {
  describe('rangeScan and truncateBefore', () => {
    it('a clean user → ([], upTo)', async () => {
      const c = ctx();
      const store = await c.open();
      const upTo = seqAt(store, 500n);
      expect(await store.rangeScan(c.tenantId, randomId(), startOf(store), upTo, 10)).toEqual({ entries: [], next: upTo, hasMore: false });
    });

    it('after > upTo → ([], after) at once', async () => {
      const c = ctx();
      const store = await c.open();
      const u = randomId();
      await store.appendBatch([entryInput(c.tenantId, u, seqAt(store, 4n), c.time.now())]);
      const after = seqAt(store, 9n);
      expect(await store.rangeScan(c.tenantId, u, after, seqAt(store, 2n), 10)).toEqual({ entries: [], next: after, hasMore: false });
    });

    it('both ends are epoch-checked; truncateBefore too', async () => {
      const c = ctx();
      const store = await c.open();
      const u = randomId();
      const other = c.shardEpoch.epoch + 1;
      await expectStoreError(store.rangeScan(c.tenantId, u, epochStartSeq(other), topOf(store), 10), EpochMismatchError);
      await expectStoreError(store.rangeScan(c.tenantId, u, startOf(store), composeMailboxSeq(other, 5n), 10), EpochMismatchError);
      await expectStoreError(store.rangeScan(c.tenantId, u, epochStartSeq(c.shardEpoch.epoch - 1), startOf(store), 10), EpochMismatchError);
      await expectStoreError(store.truncateBefore(c.tenantId, u, composeMailboxSeq(other, 5n)), EpochMismatchError);
      expect(await c.harness.readTrim(c.tenantId, u)).toBeNull();
    });

    it('another epoch of the same shard reads the same storage with its own seqs', async () => {
      const c = ctx();
      const store = await c.open();
      const next = await c.open({}, c.shardEpoch.epoch + 1);
      const u = randomId();
      await store.appendBatch([entryInput(c.tenantId, u, seqAt(store, 4n), c.time.now())]);
      await next.appendBatch([entryInput(c.tenantId, u, seqAt(next, 1n), c.time.now())]);
      expect((await next.rangeScan(c.tenantId, u, startOf(next), topOf(next), 10)).entries.map((e) => e.mailboxSeq)).toEqual([seqAt(next, 1n)]);
      expect((await store.rangeScan(c.tenantId, u, startOf(store), topOf(store), 10)).entries.map((e) => e.mailboxSeq)).toEqual([seqAt(store, 4n)]);
    });

    it('pages are cut on seq boundaries; limit counts events; the first entry is always whole', async () => {
      const c = ctx();
      const store = await c.open();
      const u = randomId();
      const now = c.time.now();
      const sizes = [2, 3, 1, 4];
      await store.appendBatch(
        sizes.map((n, i) =>
          entryInput(
            c.tenantId,
            u,
            seqAt(store, BigInt(i + 1)),
            now,
            Array.from({ length: n }, (_, k) => event(k)),
          ),
        ),
      );
      const seqs = (p: { entries: readonly { mailboxSeq: bigint }[] }) => p.entries.map((e) => e.mailboxSeq);
      const top = topOf(store);

      const p5 = await store.rangeScan(c.tenantId, u, startOf(store), top, 5);
      expect(seqs(p5)).toEqual([seqAt(store, 1n), seqAt(store, 2n)]);
      expect(p5).toMatchObject({ next: seqAt(store, 2n), hasMore: true });
      const p1 = await store.rangeScan(c.tenantId, u, startOf(store), top, 1);
      expect(seqs(p1)).toEqual([seqAt(store, 1n)]);
      expect(p1.entries[0]!.events).toHaveLength(2);
      expect(p1).toMatchObject({ next: seqAt(store, 1n), hasMore: true });
      const rest = await store.rangeScan(c.tenantId, u, seqAt(store, 2n), top, 5);
      expect(seqs(rest)).toEqual([seqAt(store, 3n), seqAt(store, 4n)]);
      expect(rest).toMatchObject({ next: top, hasMore: false });
      const bounded = await store.rangeScan(c.tenantId, u, seqAt(store, 1n), seqAt(store, 3n), 100);
      expect(seqs(bounded)).toEqual([seqAt(store, 2n), seqAt(store, 3n)]);
      expect(bounded).toMatchObject({ next: seqAt(store, 3n), hasMore: false });
      await expectStoreError(store.rangeScan(c.tenantId, u, startOf(store), top, 0), InvalidInputError);
    });

    it('trim: monotonic raise; a cursor below it → CursorExpired(boundary = trim); at it → entries above', async () => {
      const c = ctx();
      const store = await c.open();
      const u = randomId();
      const now = c.time.now();
      await store.appendBatch([1n, 2n, 3n, 4n].map((o) => entryInput(c.tenantId, u, seqAt(store, o), now)));
      expect(await c.harness.readTrim(c.tenantId, u)).toBeNull();
      await store.truncateBefore(c.tenantId, u, seqAt(store, 2n));
      await store.truncateBefore(c.tenantId, u, seqAt(store, 1n));
      expect(await c.harness.readTrim(c.tenantId, u)).toBe(seqAt(store, 2n));

      const err = await expectStoreError(store.rangeScan(c.tenantId, u, seqAt(store, 1n), topOf(store), 10), CursorExpiredError);
      expect(err.boundary).toBe(seqAt(store, 2n));
      await expectStoreError(store.rangeScan(c.tenantId, u, startOf(store), topOf(store), 10), CursorExpiredError);
      const ok = await store.rangeScan(c.tenantId, u, seqAt(store, 2n), topOf(store), 10);
      expect(ok.entries.map((e) => e.mailboxSeq)).toEqual([seqAt(store, 3n), seqAt(store, 4n)]);

      await store.truncateBefore(c.tenantId, u, seqAt(store, 3n));
      expect(await c.harness.readTrim(c.tenantId, u)).toBe(seqAt(store, 3n));
      await expectStoreError(store.rangeScan(c.tenantId, u, seqAt(store, 2n), topOf(store), 10), CursorExpiredError);
    });

    it('trim is checked first, also for a user without entries', async () => {
      const c = ctx();
      const store = await c.open();
      const u = randomId();
      await store.truncateBefore(c.tenantId, u, seqAt(store, 7n));
      await expectStoreError(store.rangeScan(c.tenantId, u, seqAt(store, 6n), topOf(store), 10), CursorExpiredError);
      expect(await store.rangeScan(c.tenantId, u, seqAt(store, 7n), seqAt(store, 9n), 10)).toEqual({ entries: [], next: seqAt(store, 9n), hasMore: false });
    });
  });
}
