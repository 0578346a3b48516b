import { CursorExpiredError, DAY_MS, composeMailboxSeq, dayOf, decodeActiveLedger } from '@qim/store-core';
import type { Id128 } from '@qim/store-core';
import { LUA_SCRIPTS } from '../generated/lua-scripts';
import { RedisKeys } from '../keys/redis-keys';
import type { UserKeys } from '../keys/redis-keys';
import { RedisMailboxFixture, SPEC_GC, rid } from '../testing/redis-mailbox-fixture';
import { appendEntriesCall, entryHeader, userAppendArgs } from './mailbox-script-args';
import { prepareEntry } from './prepared-entry';

/**
 * The append's retention meta on the real server (ADR-0022 §5): the meta is written only when the
 * ledger must change, and the expired-gap boundary stays exact although ledger items no longer
 * follow every append.
 */
describe('RedisMailboxStore append: retention meta only when the ledger must change', () => {
  let f: RedisMailboxFixture;
  beforeEach(() => {
    f = new RedisMailboxFixture();
  });
  // Generous: the clean-up SCANs the whole shared server, which other jobs may have filled.
  afterEach(async () => {
    await f.close();
  }, 120_000);

  const userKeys = (user: Id128): UserKeys => new RedisKeys(f.namespace).user(f.tenantId, user);
  const metaOf = async (user: Id128): Promise<{ gen: string | null; days: number[] }> => {
    const [gen = null, ledger = null] = await f.admin.hmgetBuffer(userKeys(user).meta, 'gen', 'ledger');
    return { gen: gen?.toString() ?? null, days: ledger === null ? [] : decodeActiveLedger(ledger).map((i) => i.day) };
  };
  /** The epoch's highest proof seq of the day (16 hex), from the zset members `<epoch>:<expiry>` scored by the seq's offset part. */
  const proofOf = async (user: Id128, day: number): Promise<string | null> => {
    const flat = await f.admin.zrange(userKeys(user).proof(day), 0, -1, 'WITHSCORES');
    let best: bigint | null = null;
    for (let i = 0; i < flat.length; i += 2) {
      if (!flat[i]!.startsWith(`${f.shardEpoch.epoch}:`)) continue;
      const seq = (BigInt(f.shardEpoch.epoch) << 47n) + BigInt(flat[i + 1]!);
      if (best === null || seq > best) best = seq;
    }
    return best === null ? null : best.toString(16).padStart(16, '0');
  };

  it('registers a day once: later entries of that day raise only the bucket proof', async () => {
    const store = f.open();
    const u = rid();
    const now = f.clock.nowMs();
    await store.appendBatch([f.entry(u, 1n, now)]);
    const first = await metaOf(u);
    expect(first.days).toEqual([dayOf(now)]);
    await store.appendBatch([f.entry(u, 2n, now)]);
    await f.open().appendBatch([f.entry(u, 3n, now)]);
    expect(await metaOf(u)).toEqual(first);
    expect((await proofOf(u, dayOf(now)))?.slice(0, 16)).toBe(f.seq(3n).toString(16).padStart(16, '0'));
    await store.appendBatch([f.entry(u, 4n, now + DAY_MS)]);
    const second = await metaOf(u);
    expect(second.days).toEqual([dayOf(now), dayOf(now) + 1]);
    expect(second.gen).not.toBe(first.gen);
    expect((await store.rangeScan(f.tenantId, u, f.start, f.top, 10)).entries.map((e) => e.mailboxSeq)).toEqual([1n, 2n, 3n, 4n].map((o) => f.seq(o)));
  });

  it('an append consuming an expired day merges the bucket proof’s max seq, not the ledger item’s', async () => {
    const now = f.clock.nowMs();
    const todayStart = BigInt(dayOf(now)) * DAY_MS;
    const retentionMs = now + 1_000n - todayStart;
    const yesterday = todayStart - DAY_MS + 1_000n;
    const store = f.open({ entryRetentionMs: retentionMs, dispatchDedupeMs: DAY_MS });
    const u = rid();
    await store.appendBatch([f.entry(u, 10n, yesterday), f.entry(u, 30n, now)]);
    await store.appendBatch([f.entry(u, 20n, yesterday)]);
    f.clock.set(now + 1_000n);
    await store.appendBatch([f.entry(u, 40n, todayStart + DAY_MS + 1_000n)]);
    expect((await metaOf(u)).days).toEqual([dayOf(now), dayOf(now) + 1]);
    const err = await store.rangeScan(f.tenantId, u, f.seq(10n), f.top, 10).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CursorExpiredError);
    expect((err as CursorExpiredError).boundary).toBe(f.seq(20n));
    expect((await store.rangeScan(f.tenantId, u, f.seq(20n), f.top, 10)).entries.map((e) => e.mailboxSeq)).toEqual([f.seq(30n), f.seq(40n)]);
  });

  it('a store that never saw the user registers a new day after one lost compare-and-set', async () => {
    const u = rid();
    const now = f.clock.nowMs();
    await f.open().appendBatch([f.entry(u, 1n, now)]);
    const fresh = f.open();
    const writes = fresh.io.writes;
    expect(await fresh.appendBatch([f.entry(u, 2n, now + DAY_MS)])).toEqual({ written: 1, expired: 0 });
    expect(fresh.io.writes - writes).toBe(2);
    expect((await metaOf(u)).days).toEqual([dayOf(now), dayOf(now) + 1]);
    const known = fresh.io.writes;
    await fresh.appendBatch([f.entry(u, 3n, now + 2n * DAY_MS)]);
    expect(fresh.io.writes - known).toBe(1);
  });

  it('a call whose later user carries a header with a non-hex seq is refused before anything is written (fail closed)', async () => {
    const u = rid();
    const now = f.clock.nowMs();
    await f.open().appendBatch([f.entry(u, 1n, now)]);
    const keys = userKeys(u);
    // the first user's entry would take the fast path (its day is registered)
    const good = prepareEntry(f.entry(u, 2n, now), f.shardEpoch.epoch, SPEC_GC.entryRetentionMs, 1_000n);
    const badHead = `${good.head.slice(0, 4)}zz${good.head.slice(6)}`;
    const bad = { ...good, head: badHead, liveHeader: entryHeader(badHead, good.tail, true) };
    const call = appendEntriesCall(new RedisKeys(f.namespace).mailboxBucket(keys.bucket), { now, horizon: now }, f.shardEpoch.epoch, 'add', [
      userAppendArgs(keys, { entries: [good], live: null, cas: null }),
      userAppendArgs(keys, { entries: [bad], live: null, cas: null }),
    ]);
    expect(await f.admin.eval(LUA_SCRIPTS.appendEntriesV5.lua, 1, ...call.keys, ...call.args)).toEqual([-10]);
    expect(await f.admin.zcard(keys.dayIndex(f.shardEpoch.epoch, dayOf(now)))).toBe(1);
  });

  it('a header whose seq belongs to another epoch than the call is refused before anything is written', async () => {
    const u = rid();
    const now = f.clock.nowMs();
    await f.open().appendBatch([f.entry(u, 1n, now)]);
    const keys = userKeys(u);
    const good = prepareEntry(f.entry(u, 2n, now), f.shardEpoch.epoch, SPEC_GC.entryRetentionMs, 1_000n);
    // the same offset in the next epoch (its lowest epoch bit is bit 47 of the seq) and in an epoch two above
    for (const epoch of [f.shardEpoch.epoch + 1, f.shardEpoch.epoch + 2]) {
      const otherHead = `${composeMailboxSeq(epoch, 2n).toString(16).padStart(16, '0')}${good.head.slice(16)}`;
      const other = { ...good, head: otherHead, liveHeader: entryHeader(otherHead, good.tail, true) };
      const call = appendEntriesCall(new RedisKeys(f.namespace).mailboxBucket(keys.bucket), { now, horizon: now }, f.shardEpoch.epoch, 'add', [
        userAppendArgs(keys, { entries: [good], live: null, cas: null }),
        userAppendArgs(keys, { entries: [other], live: null, cas: null }),
      ]);
      expect(await f.admin.eval(LUA_SCRIPTS.appendEntriesV5.lua, 1, ...call.keys, ...call.args)).toEqual([-10]);
    }
    expect(await f.admin.zcard(keys.dayIndex(f.shardEpoch.epoch, dayOf(now)))).toBe(1);
  });

  it('concurrent appenders of one user on new days all land (compare-and-set retries)', async () => {
    const u = rid();
    const now = f.clock.nowMs();
    const [a, b] = [f.open(), f.open()];
    await Promise.all(
      Array.from({ length: 8 }, (_, i) => BigInt(i)).flatMap((i) => [
        a.appendBatch([f.entry(u, 2n * i + 1n, now + i * DAY_MS)]),
        b.appendBatch([f.entry(u, 2n * i + 2n, now + i * DAY_MS + 1n)]),
      ]),
    );
    expect((await metaOf(u)).days).toHaveLength(8);
    expect((await a.rangeScan(f.tenantId, u, f.start, f.top, 100)).entries).toHaveLength(16);
  });
});
