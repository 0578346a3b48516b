import { DAY_MS, dayOf, entryExpiry } from '@qim/store-core';
import type { Id128 } from '@qim/store-core';
import type { RedisMailboxStore } from './redis-mailbox-store';
import { PLAIN_PATH_MARGIN_MS } from './warm-days';
import { RedisMailboxFixture, SPEC_GC, pageOf, rid } from '../testing/redis-mailbox-fixture';

/**
 * The plain path of warm users (ADR-0022 §5, `WarmDays`): once this process wrote a user's day
 * through the append script, further entries of that day skip the script (a proof `ZADD … GT` and
 * a day-index `ZADD`, as raw writes would) and leave what the script would have left; everything
 * else still goes through the script.
 */
describe('RedisMailboxStore: plain path of warm users', () => {
  const fixtures: RedisMailboxFixture[] = [];
  const fixture = (): RedisMailboxFixture => {
    const f = new RedisMailboxFixture();
    fixtures.push(f);
    return f;
  };
  afterEach(async () => {
    await Promise.all(fixtures.splice(0).map((f) => f.close()));
  }, 120_000);

  /** Counts the append-script calls and plain commands a store sends. */
  const tally = (store: RedisMailboxStore): { scripts: number; plain: number } => {
    const t = { scripts: 0, plain: 0 };
    const scripts = store.io.scriptsPipelined.bind(store.io);
    const plain = store.io.commandsPipelined.bind(store.io);
    store.io.scriptsPipelined = async (calls, kind) => {
      t.scripts += calls.filter((c) => c.script === 'appendEntriesV5').length;
      return scripts(calls, kind);
    };
    store.io.commandsPipelined = async (cmds, kind) => {
      t.plain += cmds.length;
      return plain(cmds, kind);
    };
    return t;
  };

  /**
   * What a user's mailbox holds, independent of the fixture's namespace, tenant and epoch: the
   * entries' offsets and payloads as read, the day index's members (seq prefix cut) and whether it
   * has a physical expiry, the bucket proof's score and whether it has none.
   */
  const facts = async (f: RedisMailboxFixture, store: RedisMailboxStore, user: Id128): Promise<unknown> => {
    const page = await store.rangeScan(f.tenantId, user, f.start, f.top, 100);
    const keys = store.keys.user(f.tenantId, user);
    const day = dayOf(f.clock.nowMs());
    const dayKey = keys.dayIndex(f.shardEpoch.epoch, day);
    const proof = await f.admin.zrange(keys.proof(day), 0, -1, 'WITHSCORES');
    return {
      entries: page.entries.map((e) => [e.mailboxSeq - f.start, e.events.map((v) => Buffer.from(v.payload).toString())]),
      next: page.next - f.start,
      members: await f.admin.zcard(dayKey),
      dayExpires: (await f.admin.pttl(dayKey)) > 0,
      proofScore: proof[1],
      proofPersisted: (await f.admin.pttl(keys.proof(day))) === -1,
    };
  };

  it('a warm user’s next entries skip the script (2 plain commands per user and day) and leave what the script path leaves', async () => {
    const results: unknown[] = [];
    for (const plainPath of [true, false]) {
      const f = fixture();
      const store = f.open(SPEC_GC, undefined, undefined, plainPath);
      const t = tally(store);
      const users = Array.from({ length: 40 }, rid);
      const payload = (n: number) => ({ events: [{ ordinal: 0, eventId: rid(), payload: Buffer.from(`m${n}`) }] });
      await store.applyPage(
        pageOf(0n, 1n, [
          [0n, f.record(users.slice(0, 30), payload(0))],
          [1n, f.record(users.slice(10), payload(1))],
        ]),
      );
      expect(t.plain).toBe(0);
      const first = t.scripts;
      expect(first).toBeGreaterThan(0);
      expect(
        await store.applyPage(
          pageOf(2n, 3n, [
            [2n, f.record(users, payload(2))],
            [3n, f.record(users.slice(5, 25), payload(3))],
          ]),
        ),
      ).toMatchObject({ frontier: 3n, entriesWritten: 60 });
      if (plainPath) {
        expect(t.scripts).toBe(first);
        // per user one proof ZADD (one day and expiry) and one day-index ZADD (its one or two entries)
        expect(t.plain).toBe(2 * users.length);
      } else {
        expect(t.scripts).toBeGreaterThan(first);
        expect(t.plain).toBe(0);
      }
      results.push(await Promise.all(users.map((u) => facts(f, store, u))));
    }
    const [plain, scripted] = results as unknown[][];
    expect(plain).toEqual(scripted);
    expect((plain![0] as { entries: unknown[] }).entries).toEqual([
      [1n, ['m0']],
      [3n, ['m2']],
    ]);
  });

  it('entries within the margin of their expiry, and a user not written by this process, go through the script', async () => {
    const f = fixture();
    const store = f.open();
    const t = tally(store);
    const [a, b] = [rid(), rid()];
    const createdAt = f.clock.nowMs();
    await store.applyPage(pageOf(0n, 0n, [[0n, f.record([a])]]));
    // b is warm only for the other store (another process): this one has never written it
    await f.open().applyPage(pageOf(1n, 1n, [[1n, f.record([b])]]));
    const scripts = t.scripts;
    await store.applyPage(pageOf(2n, 2n, [[2n, f.record([a, b])]]));
    expect(t.scripts).toBe(scripts + 1);
    expect(t.plain).toBe(2);
    // a minute inside the margin of the day's expiry: a's next entry of that day goes through the script
    f.clock.set(entryExpiry(createdAt, SPEC_GC.entryRetentionMs) - PLAIN_PATH_MARGIN_MS + 60_000n);
    // (the clock moved past the learnt ledger's trust, ADR-0034: the script may first answer the
    // meta it holds, then write; what matters is that no plain write happened)
    await store.applyPage(pageOf(3n, 3n, [[3n, f.record([a], { createdAt })]]));
    expect(t.scripts).toBeGreaterThanOrEqual(scripts + 2);
    expect(t.plain).toBe(2);
    expect((await store.rangeScan(f.tenantId, a, f.start, f.top, 10)).entries.map((e) => e.mailboxSeq)).toEqual([f.seq(0n), f.seq(2n), f.seq(3n)]);
  });

  /** A store whose first page (offset 0) wrote one user through the script, with its tally. */
  const firstPageOfOneUser = async () => {
    const f = fixture();
    const store = f.open();
    const t = tally(store);
    const a = rid();
    await store.applyPage(pageOf(0n, 0n, [[0n, f.record([a])]]));
    return { f, store, t, a };
  };

  it('a lost connection forgets every warm day: the next entries go through the script again', async () => {
    const { f, store, t, a } = await firstPageOfOneUser();
    await store.applyPage(pageOf(1n, 1n, [[1n, f.record([a])]]));
    expect([t.scripts, t.plain]).toEqual([1, 2]);
    store.io.redis.emit('close');
    await store.applyPage(pageOf(2n, 2n, [[2n, f.record([a])]]));
    expect([t.scripts, t.plain]).toEqual([2, 2]);
  });

  it(
    'keys removed behind the store’s back: the plain path still gives the re-created day index its physical expiry, ' +
      'and the same page hands the user back to the script',
    async () => {
      const { f, store, t, a } = await firstPageOfOneUser();
      const keys = store.keys.user(f.tenantId, a);
      const day = dayOf(f.clock.nowMs());
      await f.admin.del(keys.proof(day), keys.dayIndex(f.shardEpoch.epoch, day));
      await store.applyPage(pageOf(1n, 1n, [[1n, f.record([a])]]));
      // the broken premise sends the user's group through the script before the frontier moves (issue 27 item 3)
      expect([t.scripts, t.plain]).toEqual([2, 3]);
      const ttl = await f.admin.pttl(keys.dayIndex(f.shardEpoch.epoch, day));
      expect(ttl).toBeGreaterThan(Number(SPEC_GC.entryRetentionMs - DAY_MS));
      await store.applyPage(pageOf(2n, 2n, [[2n, f.record([a])]]));
      expect([t.scripts, t.plain]).toEqual([2, 5]);
    },
  );
});
