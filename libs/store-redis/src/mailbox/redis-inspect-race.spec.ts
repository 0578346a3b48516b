import { CursorExpiredError, DAY_MS, applyInspect, dayOf } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import type { MailboxGcConfig } from '@qim/store-core';
import { LUA_SCRIPTS } from '../generated/lua-scripts';
import { RedisKeys } from '../keys/redis-keys';
import { RedisMailboxFixture, rid } from '../testing/redis-mailbox-fixture';
import { testClient } from '../testing/redis-test-env';
import type { MailboxFaults } from './redis-mailbox-faults';
import { inspectRetentionCall, proofText } from './mailbox-script-args';
import { META_FIELDS, dayProofOf, decodeRetentionMeta, encodeRetentionMeta } from './stored-retention-meta';
import type { StoredMetaFields } from './stored-retention-meta';
import { RedisMailboxStore } from './redis-mailbox-store';

/**
 * Issue 27 item 2: an append racing the read-side inspection of its own day. The reader's clock is
 * past the day's expiry, the appender's just before it (clocks of two processes never agree
 * exactly). The inspector reads the meta and the day's bucket proof, the append lands (fault point
 * `beforeInspectWrite`), then the inspector's compare-and-set runs. Whatever the order, the entry
 * the append wrote must be returned to a cursor below it, or that cursor must expire — never a page
 * without it.
 */
describe('RedisMailboxStore: an append racing the inspection of its day', () => {
  let f: RedisMailboxFixture;
  const stores: RedisMailboxStore[] = [];
  beforeEach(() => {
    f = new RedisMailboxFixture();
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    await f.close();
  }, 120_000);

  const open = (clock: ManualClock, gc: MailboxGcConfig, faults?: MailboxFaults, clockSkewAllowanceMs?: bigint): RedisMailboxStore => {
    const store = new RedisMailboxStore({ redis: testClient(), namespace: f.namespace, clock, shardEpoch: f.shardEpoch, gc, faults, clockSkewAllowanceMs });
    stores.push(store);
    return store;
  };

  /** Yesterday's entries expire at `expiry` (a second from now); the reader is 1 ms past it, the appender 1 ms before. */
  function world(): { gc: MailboxGcConfig; yesterday: bigint; expiry: bigint } {
    const now = f.clock.nowMs();
    const todayStart = BigInt(dayOf(now)) * DAY_MS;
    const gc = { entryRetentionMs: now + 1_000n - todayStart, dispatchDedupeMs: DAY_MS };
    return { gc, yesterday: todayStart - DAY_MS + 1_000n, expiry: now + 1_000n };
  }

  it(
    'an appender whose clock is just before the expiry writes while the inspector is between its read and its compare-and-set: ' +
      'the entry is returned or the cursor expires',
    async () => {
      const { gc, yesterday, expiry } = world();
      const u = rid();
      await open(new ManualClock(f.clock.nowMs()), gc).appendBatch([f.entry(u, 10n, yesterday), f.entry(u, 30n, yesterday + DAY_MS)]);
      const appender = open(new ManualClock(expiry - 1n), gc);
      let raced = 0;
      const reader = open(new ManualClock(expiry + 1n), gc, {
        beforeInspectWrite: async () => {
          if (raced++ === 0) await appender.appendBatch([f.entry(u, 20n, yesterday)]);
        },
      });
      const outcome = await reader.rangeScan(f.tenantId, u, f.seq(10n), f.top, 10).then(
        (page) => page.entries.map((e) => e.mailboxSeq),
        (e: unknown) => e,
      );
      expect(raced).toBeGreaterThan(0);
      // The entry at 20 expired for the reader (its day is past), so the cursor at 10 must expire at ≥ 20.
      expect(outcome).toBeInstanceOf(CursorExpiredError);
      expect((outcome as CursorExpiredError).boundary).toBe(f.seq(20n));
    },
  );

  /**
   * The append script's own fast path (the plan's is unit-tested): within the skew + one hour of its
   * day's expiry an entry takes the compare-and-set, which raises the ledger item's max seq — so a
   * concurrent inspection's meta guard sees it, as on Scylla. Before issue 27 the script took its
   * fast path until `itemExp <= now` and left the meta untouched.
   */
  it('an entry within the skew + one hour of its day’s expiry changes the meta (compare-and-set); further away it does not (fast path)', async () => {
    const now = f.clock.nowMs();
    const todayStart = BigInt(dayOf(now)) * DAY_MS;
    // yesterday's entries expire at now + 2 h
    const gc = { entryRetentionMs: now + 2n * 3_600_000n - todayStart, dispatchDedupeMs: DAY_MS };
    const yesterday = todayStart - DAY_MS + 1_000n;
    const u = rid();
    const meta = async (): Promise<string | null> => f.admin.hget(new RedisKeys(f.namespace).user(f.tenantId, u).meta, 'gen');
    await open(new ManualClock(now), gc).appendBatch([f.entry(u, 1n, yesterday)]);
    const registered = await meta();
    // 2 h − 30 min − (30 min − 1 ms) of skew: 1 ms beyond the horizon → fast path, meta untouched
    await open(new ManualClock(now + 30n * 60_000n), gc, undefined, 30n * 60_000n - 1n).appendBatch([f.entry(u, 2n, yesterday)]);
    expect(await meta()).toBe(registered);
    // 1 ms more skew: the item expires at the horizon → compare-and-set
    await open(new ManualClock(now + 30n * 60_000n), gc, undefined, 30n * 60_000n).appendBatch([f.entry(u, 3n, yesterday)]);
    expect(await meta()).not.toBe(registered);
    expect((await open(new ManualClock(now), gc).rangeScan(f.tenantId, u, f.start, f.top, 10)).entries.map((e) => e.mailboxSeq)).toEqual(
      [1n, 2n, 3n].map((o) => f.seq(o)),
    );
  });

  it('the inspect script compares the consumed days’ proofs as read: a proof raised since the read loses the compare-and-set, nothing written', async () => {
    const { gc, yesterday, expiry } = world();
    const u = rid();
    const writer = open(new ManualClock(f.clock.nowMs()), gc);
    await writer.appendBatch([f.entry(u, 10n, yesterday), f.entry(u, 30n, yesterday + DAY_MS)]);
    const keys = new RedisKeys(f.namespace).user(f.tenantId, u);
    const stored = (await f.admin.hmgetBuffer(keys.meta, ...META_FIELDS)) as Buffer[];
    const meta = decodeRetentionMeta(stored as unknown as StoredMetaFields);
    const day = dayOf(yesterday);
    const read = await f.admin.zrangeBuffer(keys.proof(day), 0, -1, 'WITHSCORES');
    const released = [{ day, expiresAt: meta.ledger.find((i) => i.day === day)!.expiresAt }];
    const next = encodeRetentionMeta(applyInspect(meta, expiry + 1n, new Map([[day, dayProofOf(day, read)!]])));
    // a fast-path append raises the proof after the read, meta untouched (what the script's fast path writes)
    await f.admin.zadd(keys.proof(day), 'GT', String(Number(read[1]!.toString()) + 10), read[0]!.toString());
    const call = inspectRetentionCall(keys, 1_000n, stored, next, released, [proofText(read)]);
    expect(await f.admin.eval(LUA_SCRIPTS.inspectRetentionV2.lua, 1, ...call.keys, ...call.args)).toEqual([-6]);
    expect(await f.admin.hmgetBuffer(keys.meta, ...META_FIELDS)).toEqual(stored);
    const fresh = await f.admin.zrangeBuffer(keys.proof(day), 0, -1, 'WITHSCORES');
    const again = inspectRetentionCall(keys, 1_000n, stored, next, released, [proofText(fresh)]);
    expect(await f.admin.eval(LUA_SCRIPTS.inspectRetentionV2.lua, 1, ...again.keys, ...again.args)).toEqual([0]);
  });
});
