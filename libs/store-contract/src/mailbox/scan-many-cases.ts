import { CorruptEntryError, CursorExpiredError, EpochMismatchError, InvalidInputError, StoreError, composeMailboxSeq, entryExpiry } from '@qim/store-core';
import type { Id128, MailboxStore, RangeScanOutcome, RangeScanRead } from '@qim/store-core';
import { randomId } from '../support/ids';
import { TIMED_CASE_TIMEOUT_MS } from '../support/time-control';
import { entryInput, event, retentionExpiringYesterdayIn, seqAt, startOf, topOf } from './mailbox-fixtures';
import type { MailboxContext } from './mailbox-fixtures';

/** How far ahead the "yesterday" bucket of the expiry case expires (real time on Cassandra; see retention-cases). */
const SOON_MS = 3_000n;

/** What one `rangeScan` answers, in the shape of a `rangeScanMany` outcome (a non-store error fails the case). */
async function single(store: MailboxStore, r: RangeScanRead): Promise<RangeScanOutcome> {
  try {
    return { ok: true, page: await store.rangeScan(r.tenantId, r.userId, r.after, r.upTo, r.limit, r.maxBytes) };
  } catch (error) {
    if (!(error instanceof StoreError)) throw error;
    return { ok: false, error };
  }
}

/** An outcome as comparable data: the page, or the error's class, code and boundary (not its message). */
function shape(o: RangeScanOutcome): unknown {
  if (o.ok) return { page: o.page };
  const e = o.error;
  return { error: e.constructor.name, code: e.code, boundary: e instanceof CursorExpiredError ? e.boundary : undefined };
}

/** `rangeScanMany` first (so no single read has inspected or repaired anything before it), then each read alone; they must agree. */
async function expectSameAsSingles(store: MailboxStore, reads: readonly RangeScanRead[]): Promise<RangeScanOutcome[]> {
  const many = await store.rangeScanMany(reads);
  expect(many).toHaveLength(reads.length);
  const singles: RangeScanOutcome[] = [];
  for (const r of reads) singles.push(await single(store, r));
  expect(many.map(shape)).toEqual(singles.map(shape));
  return many;
}

const read = (tenantId: Id128, userId: Id128, after: bigint, upTo: bigint, limit: number, maxBytes?: number): RangeScanRead =>
  maxBytes === undefined ? { tenantId, userId, after, upTo, limit } : { tenantId, userId, after, upTo, limit, maxBytes };

/** `rangeScanMany` (ADR-0041): several users' scans in one call, each answered exactly as its own `rangeScan`. */
export function scanManyCases(ctx: () => MailboxContext): void {
  describe('rangeScanMany', () => {
    it('no reads → no outcome', async () => {
      const c = ctx();
      const store = await c.open();
      expect(await store.rangeScanMany([])).toEqual([]);
    });

    it('equals each user’s own rangeScan: pages cut by limit and bytes, clean users, after > upTo, trim, epoch and budget refusals', async () => {
      const c = ctx();
      const store = await c.open();
      const now = c.time.now();
      const top = topOf(store);
      // Many users (spread over the store's buckets / partitions), each with a few entries of 1–3 events.
      const users = Array.from({ length: 24 }, () => randomId());
      await store.appendBatch(
        users.flatMap((u, k) =>
          [1n, 2n, 3n, 4n].map((o) =>
            entryInput(
              c.tenantId,
              u,
              seqAt(store, o + BigInt(k)),
              now,
              Array.from({ length: 1 + ((k + Number(o)) % 3) }, (_, i) => event(i, 'p'.repeat(40 + 20 * i))),
            ),
          ),
        ),
      );
      const trimmed = users[0]!;
      await store.truncateBefore(c.tenantId, trimmed, seqAt(store, 3n));
      const other = c.shardEpoch.epoch + 1;
      const reads: RangeScanRead[] = [
        ...users.map((u, k) => read(c.tenantId, u, startOf(store), top, 1 + (k % 5))), // limit cuts (some pages whole)
        ...users.slice(0, 8).map((u, k) => read(c.tenantId, u, seqAt(store, 2n + BigInt(k)), top, 100, 1 + 60 * k)), // byte budgets
        ...users.slice(0, 4).map((u) => read(c.tenantId, u, seqAt(store, 2n), seqAt(store, 4n), 100)), // bounded above
        read(c.tenantId, randomId(), startOf(store), top, 10), // a clean user
        read(c.tenantId, users[1]!, top, seqAt(store, 2n), 10), // after > upTo
        read(c.tenantId, trimmed, seqAt(store, 1n), top, 10), // below the trim
        read(c.tenantId, trimmed, seqAt(store, 3n), top, 10), // at the trim
        read(c.tenantId, users[2]!, composeMailboxSeq(other, 1n), top, 10), // another epoch
        read(c.tenantId, users[3]!, startOf(store), top, 0), // no budget
        read(c.tenantId, users[4]!, startOf(store), top, 10, 0),
        read(c.tenantId, users[5]!, startOf(store), top, 50), // a user read twice in one call
      ];
      const many = await expectSameAsSingles(store, reads);
      // The outcomes really are of every kind (the comparison is not of empty answers).
      const n = users.length;
      expect(many[0]!.ok ? null : many[0]!.error).toBeInstanceOf(CursorExpiredError); // the trimmed user, from the start
      expect(many.slice(1, n).every((o) => o.ok && o.page.entries.length > 0)).toBe(true);
      expect(many.slice(0, n).some((o) => o.ok && o.page.hasMore)).toBe(true);
      expect(many.slice(n, n + 8).some((o) => o.ok && o.page.hasMore && o.page.entries.length === 1)).toBe(true);
      const tail = many.slice(n + 12);
      expect(tail[0]).toEqual({ ok: true, page: { entries: [], next: top, hasMore: false } });
      expect(tail[1]).toEqual({ ok: true, page: { entries: [], next: top, hasMore: false } });
      expect(tail[2]!.ok ? null : tail[2]!.error).toBeInstanceOf(CursorExpiredError);
      expect(tail[3]!.ok && tail[3]!.page.entries.length).toBe(1);
      expect(tail[4]!.ok ? null : tail[4]!.error).toBeInstanceOf(EpochMismatchError);
      for (const bad of [tail[5]!, tail[6]!]) expect(bad.ok ? null : bad.error).toBeInstanceOf(InvalidInputError);
      expect(tail[7]!.ok && tail[7]!.page).toMatchObject({ next: top, hasMore: false, entries: expect.any(Array) });
      expect(tail[7]!.ok && tail[7]!.page.entries.length).toBe(4);
    });

    it(
      'an expired day is a CursorExpired for its reader and not for the others of the call; a damaged entry fails only its reader',
      async () => {
        const c = ctx();
        const plan = retentionExpiringYesterdayIn(c.time.now(), SOON_MS);
        const store = await c.open({ entryRetentionMs: plan.retentionMs });
        const [aging, fresh, damaged] = [randomId(), randomId(), randomId()];
        const [low, high, newer] = [seqAt(store, 10n), seqAt(store, 20n), seqAt(store, 30n)];
        await store.appendBatch([
          entryInput(c.tenantId, aging, low, plan.today),
          entryInput(c.tenantId, aging, high, plan.yesterday),
          entryInput(c.tenantId, aging, newer, plan.today),
          entryInput(c.tenantId, fresh, low, plan.today),
          entryInput(c.tenantId, damaged, low, plan.today),
          entryInput(c.tenantId, damaged, newer, plan.today),
        ]);
        await c.harness.corruptEntry(c.tenantId, damaged, newer);
        await c.time.reach(entryExpiry(plan.yesterday, plan.retentionMs));
        const top = topOf(store);
        const many = await expectSameAsSingles(store, [
          read(c.tenantId, aging, startOf(store), top, 100),
          read(c.tenantId, fresh, startOf(store), top, 100),
          read(c.tenantId, damaged, startOf(store), top, 100),
          read(c.tenantId, aging, high, top, 100),
        ]);
        const [expired, live, corrupt, above] = many;
        expect(expired!.ok ? null : expired!.error).toBeInstanceOf(CursorExpiredError);
        expect(expired!.ok ? null : (expired!.error as CursorExpiredError).boundary).toBe(high);
        expect(live!.ok && live!.page.entries.map((e) => e.mailboxSeq)).toEqual([low]);
        expect(corrupt!.ok ? null : corrupt!.error).toBeInstanceOf(CorruptEntryError);
        expect(above!.ok && above!.page.entries.map((e) => e.mailboxSeq)).toEqual([newer]);
      },
      TIMED_CASE_TIMEOUT_MS,
    );
  });
}
