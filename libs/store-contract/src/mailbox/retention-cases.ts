import { CorruptEntryError, CursorExpiredError, DAY_MS, dayOf, entryExpiry } from '@qim/store-core';
import { expectStoreError } from '../support/expect-error';
import { randomId } from '../support/ids';
import { TIMED_CASE_TIMEOUT_MS } from '../support/time-control';
import { WEEK_MS, entryInput, retentionExpiringYesterdayIn, seqAt, startOf, topOf } from './mailbox-fixtures';
import type { MailboxContext } from './mailbox-fixtures';

/**
 * How far ahead the "yesterday" bucket of these cases expires. On Cassandra this is real time: the
 * writes before the first read (four appends, a proof removal) must end before the reader's margin
 * (1 s + twice the skew bound before the expiry) is reached, also on a loaded machine — 1.5 s was
 * too short there once (a fresh-clone run read the day as expired before the case meant it to).
 */
const SOON_MS = 3_000n;

/** V4 retention proof: expired buckets become visible gaps; lost proofs fail closed; trim never moves. */
export function retentionCases(ctx: () => MailboxContext): void {
  describe('retention gaps', () => {
    it(
      'an expired high-seq bucket beside a live low-seq bucket → CursorExpired below the high seq; trim unchanged',
      async () => {
        const c = ctx();
        const plan = retentionExpiringYesterdayIn(c.time.now(), SOON_MS);
        const store = await c.open({ entryRetentionMs: plan.retentionMs });
        const u = randomId();
        const low = seqAt(store, 10n);
        const high = seqAt(store, 20n);
        const newer = seqAt(store, 30n);
        await store.appendBatch([
          entryInput(c.tenantId, u, low, plan.today),
          entryInput(c.tenantId, u, high, plan.yesterday),
          entryInput(c.tenantId, u, newer, plan.today),
        ]);
        const expiry = entryExpiry(plan.yesterday, plan.retentionMs);
        const before = await store.rangeScan(c.tenantId, u, startOf(store), topOf(store), 100);
        expect(before.entries.map((e) => e.mailboxSeq)).toEqual([low, high, newer]);

        await c.time.reach(expiry);
        const err = await expectStoreError(store.rangeScan(c.tenantId, u, startOf(store), topOf(store), 100), CursorExpiredError);
        expect(err.boundary).toBe(high);
        await expectStoreError(store.rangeScan(c.tenantId, u, low, topOf(store), 100), CursorExpiredError);
        expect(await c.harness.readTrim(c.tenantId, u)).toBeNull();
        const page = await store.rangeScan(c.tenantId, u, high, topOf(store), 100);
        expect(page.entries.map((e) => e.mailboxSeq)).toEqual([newer]);
        expect(page).toMatchObject({ next: topOf(store), hasMore: false });
        expect(await c.harness.readTrim(c.tenantId, u)).toBeNull();

        // a later append consumes nothing new and the gap stays
        await store.appendBatch([entryInput(c.tenantId, u, seqAt(store, 40n), c.time.now())]);
        await expectStoreError(store.rangeScan(c.tenantId, u, low, topOf(store), 100), CursorExpiredError);
      },
      TIMED_CASE_TIMEOUT_MS,
    );

    it('an append whose expiry already passed writes no entry, only its proof and gap (trim never raised)', async () => {
      const c = ctx();
      const store = await c.open();
      const u = randomId();
      const old = c.time.now() - 10n * DAY_MS;
      const live = c.time.now();
      expect(entryExpiry(old, WEEK_MS) <= c.time.now()).toBe(true);
      const report = await store.appendBatch([entryInput(c.tenantId, u, seqAt(store, 5n), old), entryInput(c.tenantId, u, seqAt(store, 3n), live)]);
      expect(report).toEqual({ written: 1, expired: 1 });
      const err = await expectStoreError(store.rangeScan(c.tenantId, u, startOf(store), topOf(store), 100), CursorExpiredError);
      expect(err.boundary).toBe(seqAt(store, 5n));
      expect((await store.rangeScan(c.tenantId, u, seqAt(store, 5n), topOf(store), 100)).entries).toEqual([]);
      expect(await c.harness.readTrim(c.tenantId, u)).toBeNull();
      expect(await store.appendBatch([entryInput(c.tenantId, u, seqAt(store, 5n), old)])).toEqual({ written: 0, expired: 1 });
    });

    it(
      'a removed bucket proof behind a ledger item → CorruptEntry once that day has expired',
      async () => {
        const c = ctx();
        const plan = retentionExpiringYesterdayIn(c.time.now(), SOON_MS);
        const store = await c.open({ entryRetentionMs: plan.retentionMs });
        const [u, witness] = [randomId(), randomId()];
        for (const user of [u, witness]) {
          await store.appendBatch([entryInput(c.tenantId, user, seqAt(store, 8n), plan.yesterday), entryInput(c.tenantId, user, seqAt(store, 9n), plan.today)]);
        }
        await c.harness.removeBucketProof(c.tenantId, u, c.shardEpoch.epoch, dayOf(plan.yesterday));
        expect((await store.rangeScan(c.tenantId, u, startOf(store), topOf(store), 100)).entries).toHaveLength(2);

        await c.time.reach(entryExpiry(plan.yesterday, plan.retentionMs));
        await expectStoreError(store.rangeScan(c.tenantId, u, seqAt(store, 9n), topOf(store), 100), CorruptEntryError);
        await expectStoreError(store.rangeScan(c.tenantId, witness, startOf(store), topOf(store), 100), CursorExpiredError);
        expect((await store.rangeScan(c.tenantId, witness, seqAt(store, 8n), topOf(store), 100)).entries.map((e) => e.mailboxSeq)).toEqual([seqAt(store, 9n)]);
      },
      TIMED_CASE_TIMEOUT_MS,
    );

    it(
      'a bucket proof lower than its ledger item → CorruptEntry once that day has expired',
      async () => {
        const c = ctx();
        const plan = retentionExpiringYesterdayIn(c.time.now(), SOON_MS);
        const older = await c.open({ entryRetentionMs: plan.retentionMs });
        const newer = await c.open({ entryRetentionMs: plan.retentionMs }, c.shardEpoch.epoch + 1);
        const [u, witness] = [randomId(), randomId()];
        // The day's ledger item holds the newer epoch's seq; removing that epoch's proof leaves only the older, lower one.
        for (const user of [u, witness]) {
          await newer.appendBatch([entryInput(c.tenantId, user, seqAt(newer, 5n), plan.yesterday)]);
          await older.appendBatch([entryInput(c.tenantId, user, seqAt(older, 9n), plan.yesterday)]);
        }
        await c.harness.removeBucketProof(c.tenantId, u, newer.shardEpoch.epoch, dayOf(plan.yesterday));
        expect((await newer.rangeScan(c.tenantId, u, startOf(newer), topOf(newer), 100)).entries.map((e) => e.mailboxSeq)).toEqual([seqAt(newer, 5n)]);

        await c.time.reach(entryExpiry(plan.yesterday, plan.retentionMs));
        await expectStoreError(newer.rangeScan(c.tenantId, u, seqAt(newer, 5n), topOf(newer), 100), CorruptEntryError);
        const err = await expectStoreError(newer.rangeScan(c.tenantId, witness, startOf(newer), topOf(newer), 100), CursorExpiredError);
        expect(err.boundary).toBe(seqAt(newer, 5n));
      },
      TIMED_CASE_TIMEOUT_MS,
    );

    it(
      'an entry is readable until its absolute expiry and invisible from then on',
      async () => {
        const c = ctx();
        const plan = retentionExpiringYesterdayIn(c.time.now(), SOON_MS);
        const store = await c.open({ entryRetentionMs: plan.retentionMs });
        const u = randomId();
        await store.appendBatch([entryInput(c.tenantId, u, seqAt(store, 2n), plan.yesterday)]);
        const expiry = entryExpiry(plan.yesterday, plan.retentionMs);
        if (c.time.manual) await c.time.reach(expiry - 1n);
        expect((await store.rangeScan(c.tenantId, u, startOf(store), topOf(store), 100)).entries).toHaveLength(1);
        await c.time.reach(expiry);
        expect(await store.rangeScan(c.tenantId, u, seqAt(store, 2n), topOf(store), 100)).toEqual({ entries: [], next: topOf(store), hasMore: false });
      },
      TIMED_CASE_TIMEOUT_MS,
    );
  });
}
