import { CorruptEntryError, EpochMismatchError, InvalidInputError, composeMailboxSeq, entryExpiry } from '@qim/store-core';
import type { MailboxEntry } from '@qim/store-core';
import { expectStoreError } from '../support/expect-error';
import { randomId } from '../support/ids';
import { WEEK_MS, entryInput, event, seqAt, startOf, topOf } from './mailbox-fixtures';
import type { MailboxContext } from './mailbox-fixtures';

/** Events of an entry as comparable plain values. */
function shape(e: MailboxEntry): { seq: bigint; events: [number, string, string][] } {
  return { seq: e.mailboxSeq, events: e.events.map((ev) => [ev.ordinal, ev.eventId, Buffer.from(ev.payload).toString('utf8')]) };
}

/** `appendBatch`: complete groups, canonical order, all-or-nothing validation, whole-group replay. */
export function appendCases(ctx: () => MailboxContext): void {
  describe('appendBatch', () => {
    it('stores complete groups per (user, seq), ascending, with the fixed absolute expiry of their day', async () => {
      const c = ctx();
      const store = await c.open();
      const [u1, u2] = [randomId(), randomId()];
      const now = c.time.now();
      const inputs = [
        entryInput(c.tenantId, u1, seqAt(store, 12n), now, [event(0), event(1)]),
        entryInput(c.tenantId, u1, seqAt(store, 10n), now - 1_000n),
        entryInput(c.tenantId, u2, seqAt(store, 11n), now),
      ];
      expect(await store.appendBatch(inputs)).toEqual({ written: 3, expired: 0 });
      const p1 = await store.rangeScan(c.tenantId, u1, startOf(store), topOf(store), 100);
      expect(p1.entries.map((e) => e.mailboxSeq)).toEqual([seqAt(store, 10n), seqAt(store, 12n)]);
      expect(p1.entries.map((e) => e.expiresAt)).toEqual([entryExpiry(now - 1_000n, WEEK_MS), entryExpiry(now, WEEK_MS)]);
      expect(p1.entries.every((e) => e.tenantId === c.tenantId && e.userId === u1)).toBe(true);
      expect(p1.entries[0]!.createdAt).toBe(now - 1_000n);
      expect(p1).toMatchObject({ next: topOf(store), hasMore: false });
      const p2 = await store.rangeScan(c.tenantId, u2, startOf(store), topOf(store), 100);
      expect(p2.entries.map(shape)).toEqual([shape({ ...inputs[2]!, expiresAt: 0n })]);
      expect(await store.appendBatch([])).toEqual({ written: 0, expired: 0 });
    });

    it('normalises events to (ordinal, eventId) order', async () => {
      const c = ctx();
      const store = await c.open();
      const u = randomId();
      const evs = [event(7), event(0), event(3), event(1)];
      await store.appendBatch([entryInput(c.tenantId, u, seqAt(store, 5n), c.time.now(), evs)]);
      const [e] = (await store.rangeScan(c.tenantId, u, startOf(store), topOf(store), 100)).entries;
      expect(e!.events.map((x) => x.ordinal)).toEqual([0, 1, 3, 7]);
      expect(e!.events.map((x) => x.eventId)).toEqual([evs[1]!.eventId, evs[3]!.eventId, evs[2]!.eventId, evs[0]!.eventId]);
    });

    it('a repeated ordinal in one group → InvalidInput and nothing of the batch is written', async () => {
      const c = ctx();
      const store = await c.open();
      const [ok, bad] = [randomId(), randomId()];
      const now = c.time.now();
      const batch = [entryInput(c.tenantId, ok, seqAt(store, 1n), now), entryInput(c.tenantId, bad, seqAt(store, 1n), now, [event(0), event(2), event(2)])];
      await expectStoreError(store.appendBatch(batch), InvalidInputError);
      for (const u of [ok, bad]) {
        expect(await store.rangeScan(c.tenantId, u, startOf(store), seqAt(store, 9n), 10)).toEqual({ entries: [], next: seqAt(store, 9n), hasMore: false });
      }
    });

    it('two groups for one (user, seq) in one call → InvalidInput and nothing of the batch is written', async () => {
      const c = ctx();
      const store = await c.open();
      const [u, other] = [randomId(), randomId()];
      const now = c.time.now();
      const batch = [
        entryInput(c.tenantId, other, seqAt(store, 1n), now),
        entryInput(c.tenantId, u, seqAt(store, 2n), now, [event(0, 'one')]),
        entryInput(c.tenantId, u, seqAt(store, 2n), now, [event(1, 'two')]),
      ];
      await expectStoreError(store.appendBatch(batch), InvalidInputError);
      for (const user of [u, other]) {
        expect(await store.rangeScan(c.tenantId, user, startOf(store), topOf(store), 10)).toEqual({ entries: [], next: topOf(store), hasMore: false });
      }
      expect(await store.appendBatch(batch.slice(0, 2))).toEqual({ written: 2, expired: 0 });
    });

    it('a seq of another epoch → EpochMismatch and nothing of the batch is written', async () => {
      const c = ctx();
      const store = await c.open();
      const u = randomId();
      const now = c.time.now();
      const foreign = composeMailboxSeq(c.shardEpoch.epoch + 1, 1n);
      await expectStoreError(
        store.appendBatch([entryInput(c.tenantId, u, seqAt(store, 1n), now), entryInput(c.tenantId, u, foreign, now)]),
        EpochMismatchError,
      );
      expect((await store.rangeScan(c.tenantId, u, startOf(store), topOf(store), 10)).entries).toEqual([]);
    });

    it('a replay overwrites the whole group with the same value (no duplicate, no stray member) and never renews the expiry', async () => {
      const c = ctx();
      const store = await c.open();
      const u = randomId();
      const createdAt = c.time.now();
      const group = [event(0), event(1), event(2)];
      const input = entryInput(c.tenantId, u, seqAt(store, 3n), createdAt, group);
      await store.appendBatch([input]);
      const first = (await store.rangeScan(c.tenantId, u, startOf(store), topOf(store), 100)).entries;
      if (c.time.manual) await c.time.pass(1_000n);
      expect(await store.appendBatch([{ ...input, events: [group[2]!, group[0]!, group[1]!] }])).toEqual({ written: 1, expired: 0 });
      const again = (await store.rangeScan(c.tenantId, u, startOf(store), topOf(store), 100)).entries;
      expect(again.map(shape)).toEqual(first.map(shape));
      expect(again[0]!.events).toHaveLength(3);
      expect(again[0]!.expiresAt).toBe(entryExpiry(createdAt, WEEK_MS));

      await store.appendBatch([{ ...input, events: [group[0]!, group[1]!] }]);
      const replaced = (await store.rangeScan(c.tenantId, u, startOf(store), topOf(store), 100)).entries;
      expect(replaced).toHaveLength(1);
      expect(replaced[0]!.events.map((e) => e.eventId)).toEqual([group[0]!.eventId, group[1]!.eventId]);
    });

    it('an undecodable stored entry → CorruptEntry (never skipped)', async () => {
      const c = ctx();
      const store = await c.open();
      const u = randomId();
      const now = c.time.now();
      await store.appendBatch([1n, 2n, 3n].map((o) => entryInput(c.tenantId, u, seqAt(store, o), now)));
      await c.harness.corruptEntry(c.tenantId, u, seqAt(store, 2n));
      await expectStoreError(store.rangeScan(c.tenantId, u, startOf(store), topOf(store), 100), CorruptEntryError);
      const after = await store.rangeScan(c.tenantId, u, seqAt(store, 2n), topOf(store), 100);
      expect(after.entries.map((e) => e.mailboxSeq)).toEqual([seqAt(store, 3n)]);
    });
  });
}
