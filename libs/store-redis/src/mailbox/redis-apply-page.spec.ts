import { CorruptEntryError, FrontierGapError, InvalidInputError, dayOf, encodeMailboxEntry, entryExpiry } from '@qim/store-core';
import type { Id128 } from '@qim/store-core';
import { writtenPrimaries } from '../redis/replica-acks';
import { advanceFrontierCall } from './mailbox-script-args';
import { MAX_ENTRIES_PER_CALL } from './redis-user-appender';
import { SimulatedCrashError } from './redis-mailbox-faults';
import { RedisMailboxStore } from './redis-mailbox-store';
import { RedisMailboxFixture, SPEC_GC, pageOf, rid } from '../testing/redis-mailbox-fixture';
import { keysMatching, testClient } from '../testing/redis-test-env';

/** `applyPage` / `frontier` on the real server (ADR-0022), beside the shared contract suite. */
describe('RedisMailboxStore.applyPage', () => {
  let f: RedisMailboxFixture;
  beforeEach(() => {
    f = new RedisMailboxFixture();
  });
  // Generous: the clean-up SCANs the whole shared server, which other jobs may have filled.
  afterEach(async () => {
    await f.close();
  }, 120_000);

  const seqsOf = async (store: RedisMailboxStore, user: Id128): Promise<bigint[]> =>
    (await store.rangeScan(f.tenantId, user, f.start, f.top, 100)).entries.map((e) => e.mailboxSeq);

  it('applies a first page: entries at each record’s seq, dead-lettered offsets covered, frontier at toOffset', async () => {
    const store = f.open();
    const [a, b, c] = [rid(), rid(), rid()];
    const r1 = f.record([a, b]);
    const r2 = f.record([b, c]);
    expect(await store.frontier()).toEqual({ offset: null });
    const report = await store.applyPage(
      pageOf(10n, 14n, [
        [10n, r1],
        [13n, r2],
      ]),
    );
    expect(report).toEqual({
      frontier: 14n,
      wrote: true,
      entriesWritten: 4,
      entriesExpired: 0,
      outcomes: [
        { offset: 10n, dispatchId: r1.dispatchId, outcome: 'applied', canonicalOffset: 10n },
        { offset: 13n, dispatchId: r2.dispatchId, outcome: 'applied', canonicalOffset: 13n },
      ],
    });
    expect(await seqsOf(store, a)).toEqual([f.seq(10n)]);
    expect(await seqsOf(store, b)).toEqual([f.seq(10n), f.seq(13n)]);
    const [entry] = (await store.rangeScan(f.tenantId, c, f.start, f.top, 10)).entries;
    expect(entry!.events.map((e) => Buffer.from(e.payload).toString())).toEqual(['hello']);
    expect(await store.frontier()).toEqual({ offset: 14n });
  });

  it('uses one script for the index, one per mailbox bucket touched and one for the frontier; no meta read for fresh users', async () => {
    const store = f.open();
    const users = Array.from({ length: 600 }, rid);
    const buckets = new Set(users.map((u) => store.keys.user(f.tenantId, u).bucket));
    expect(buckets.size).toBeLessThan(users.length);
    const [reads, writes] = [store.io.reads, store.io.writes];
    await store.applyPage(
      pageOf(0n, 1n, [
        [0n, f.record(users.slice(0, 400))],
        [1n, f.record(users.slice(300))],
      ]),
    );
    expect(store.io.reads - reads).toBe(0);
    expect(store.io.writes - writes).toBe(1 + buckets.size + 1);
    for (const u of [users[0]!, users[350]!, users[599]!]) expect((await seqsOf(store, u)).length).toBe(u === users[350] ? 2 : 1);
  });

  it('a bucket with more than MAX_ENTRIES_PER_CALL entries is split into several calls; every entry lands', async () => {
    const store = f.open();
    const bucket = store.keys.user(f.tenantId, rid()).bucket;
    const users: Id128[] = [];
    while (users.length < MAX_ENTRIES_PER_CALL + 40) {
      const u = rid();
      if (store.keys.mailboxBucketOf(f.tenantId, u) === bucket) users.push(u);
    }
    const writes = store.io.writes;
    expect(await store.applyPage(pageOf(0n, 0n, [[0n, f.record(users)]]))).toMatchObject({ entriesWritten: users.length });
    expect(store.io.writes - writes).toBe(1 + 2 + 1);
    const seen = await Promise.all(users.map((u) => seqsOf(store, u)));
    expect(seen.every((s) => s.length === 1 && s[0] === f.seq(0n))).toBe(true);
  });

  it.each([
    ['per-user-layout', /per-user-tag Redis layout.*new QIM_MAILBOX_EPOCH or under a new QIM_REDIS_NAMESPACE/],
    ['entry-key-layout', /one key per entry .*day index.*new QIM_MAILBOX_EPOCH or under a new QIM_REDIS_NAMESPACE/],
  ] as const)(
    'refuses a shard and epoch an older layout applied (%s: its frontier name exists): no page, no frontier read; a new epoch starts',
    async (layout, message) => {
      const store = f.open();
      const keys = store.keys.shardFrontier(f.shardEpoch.shard, f.shardEpoch.epoch);
      const old = keys.oldLayoutFrontiers.find((o) => o.layout === layout)!.key;
      await f.admin.set(old, '0000000000000004');
      const u = rid();
      const refusal = { code: 'INVALID_STATE', message: expect.stringMatching(message) };
      await expect(store.applyPage(pageOf(5n, 5n, [[5n, f.record([u])]]))).rejects.toMatchObject(refusal);
      await expect(store.frontier()).rejects.toMatchObject(refusal);
      expect(await f.admin.exists(keys.frontier)).toBe(0);
      expect((await keysMatching(f.admin, `${f.namespace}:*`)).sort()).toEqual([old]);
      const nextEpoch = new RedisMailboxStore({
        redis: testClient(),
        namespace: f.namespace,
        clock: f.clock,
        shardEpoch: { ...f.shardEpoch, epoch: f.shardEpoch.epoch + 1 },
        gc: SPEC_GC,
      });
      try {
        expect(await nextEpoch.frontier()).toEqual({ offset: null });
        await nextEpoch.applyPage(pageOf(0n, 0n, [[0n, f.record([u])]]));
        expect(await nextEpoch.frontier()).toEqual({ offset: 0n });
      } finally {
        await nextEpoch.close();
      }
    },
  );

  it('a re-applied page rewrites the same member; other bytes under a seq in a day index fail closed (CorruptEntryError), even on a page of one', async () => {
    const u = rid();
    const record = f.record([u]);
    const page = pageOf(0n, 0n, [[0n, record]]);
    await expect(f.open(SPEC_GC, { crashBeforeFrontier: true }).applyPage(page)).rejects.toBeInstanceOf(SimulatedCrashError);
    const store = f.open();
    await store.applyPage(page);
    const day = store.keys.user(f.tenantId, u).dayIndex(f.shardEpoch.epoch, dayOf(record.createdAt));
    expect(await f.admin.zcard(day)).toBe(1);
    expect(await seqsOf(store, u)).toEqual([f.seq(0n)]);

    const seq = f.seq(0n);
    const other = encodeMailboxEntry({
      tenantId: f.tenantId,
      userId: u,
      mailboxSeq: seq,
      createdAt: record.createdAt,
      expiresAt: entryExpiry(record.createdAt, SPEC_GC.entryRetentionMs),
      events: [{ ordinal: 0, eventId: rid(), payload: Buffer.from('other') }],
    });
    await f.admin.zadd(day, 0, Buffer.concat([Buffer.from(seq.toString(16).padStart(16, '0')), other]));
    await expect(store.rangeScan(f.tenantId, u, f.start, f.top, 10)).rejects.toThrow(
      new CorruptEntryError(`entry ${seq} is stored twice with different bytes`),
    );
    await expect(store.rangeScan(f.tenantId, u, f.start, f.top, 1)).rejects.toBeInstanceOf(CorruptEntryError);
  });

  it('refuses a gap above the frontier and writes nothing; a page at or below it is behind', async () => {
    const store = f.open();
    const u = rid();
    await store.applyPage(pageOf(0n, 4n, [[2n, f.record([u])]]));
    const later = f.record([u]);
    await expect(store.applyPage(pageOf(6n, 8n, [[6n, later]]))).rejects.toBeInstanceOf(FrontierGapError);
    expect(await f.admin.exists(store.keys.shardFrontier(f.shardEpoch.shard, f.shardEpoch.epoch).dispatchIndex(later.dispatchId))).toBe(0);
    expect(await store.frontier()).toEqual({ offset: 4n });
    const behind = await store.applyPage(pageOf(1n, 4n, [[3n, later]]));
    expect(behind).toEqual({ frontier: 4n, wrote: false, outcomes: [], entriesWritten: 0, entriesExpired: 0 });
    expect(await seqsOf(store, u)).toEqual([f.seq(2n)]);
    await store.applyPage(pageOf(5n, 8n, [[6n, later]]));
    expect(await seqsOf(store, u)).toEqual([f.seq(2n), f.seq(6n)]);
  });

  it('a bad page is refused before anything is written', async () => {
    const store = f.open();
    const other = f.record([rid()], { shard: (f.shardEpoch.shard + 1) % 65_536 });
    const good = f.record([rid()]);
    await expect(
      store.applyPage(
        pageOf(0n, 3n, [
          [0n, good],
          [1n, other],
        ]),
      ),
    ).rejects.toBeInstanceOf(InvalidInputError);
    await expect(
      store.applyPage(
        pageOf(0n, 3n, [
          [2n, good],
          [1n, f.record([rid()])],
        ]),
      ),
    ).rejects.toBeInstanceOf(InvalidInputError);
    expect(await keysMatching(f.admin, `${f.namespace}:*`)).toEqual([]);
  });

  it('duplicates across pages keep the lowest offset; other content is a conflict; nothing is written for either', async () => {
    const store = f.open();
    const [u, v] = [rid(), rid()];
    const r = f.record([u, v]);
    await store.applyPage(pageOf(0n, 0n, [[0n, r]]));
    const forged = { ...r, recipients: [u] };
    const report = await store.applyPage(
      pageOf(1n, 3n, [
        [1n, r],
        [3n, forged],
      ]),
    );
    expect(report.outcomes).toEqual([
      { offset: 1n, dispatchId: r.dispatchId, outcome: 'duplicate', canonicalOffset: 0n },
      { offset: 3n, dispatchId: r.dispatchId, outcome: 'conflict', canonicalOffset: 0n },
    ]);
    expect(report).toMatchObject({ frontier: 3n, wrote: true, entriesWritten: 0 });
    expect(await seqsOf(store, u)).toEqual([f.seq(0n)]);
    expect(await seqsOf(store, v)).toEqual([f.seq(0n)]);
  });

  it('in-page repeats are judged against the first sight; a replayed page converges to the same entries', async () => {
    const store = f.open();
    const u = rid();
    const r = f.record([u]);
    const page = pageOf(0n, 2n, [
      [0n, r],
      [1n, { ...r, seq: 9n }],
      [2n, r],
    ]);
    const first = await store.applyPage(page);
    expect(first.outcomes.map((o) => [o.offset, o.outcome, o.canonicalOffset])).toEqual([
      [0n, 'applied', 0n],
      [1n, 'conflict', 0n],
      [2n, 'duplicate', 0n],
    ]);
    const before = await store.rangeScan(f.tenantId, u, f.start, f.top, 10);
    const zombie = f.open();
    await expect(zombie.applyPage(page)).resolves.toMatchObject({ wrote: false, frontier: 2n });
    await f.admin.del(store.keys.shardFrontier(f.shardEpoch.shard, f.shardEpoch.epoch).frontier);
    // a store that saw the frontier refuses once it vanished (lost writes, redis-lost-writes.spec.ts); a new process replays
    await expect(zombie.applyPage(page)).rejects.toMatchObject({ code: 'FRONTIER_GAP' });
    expect((await f.open().applyPage(page)).outcomes).toEqual(first.outcomes);
    expect(await store.rangeScan(f.tenantId, u, f.start, f.top, 10)).toEqual(before);
  });

  it('the frontier only ever rises, whatever order frontier writes land in', async () => {
    const store = f.open();
    await store.applyPage(pageOf(0n, 9n, []));
    const keys = store.keys.shardFrontier(f.shardEpoch.shard, f.shardEpoch.epoch);
    // The run id of the server holding the frontier (on a Cluster, the primary of its slot).
    const [primary] = writtenPrimaries(f.admin, [keys.frontier]);
    const runId = /^run_id:(\w+)/m.exec(await primary!.info('server'))![1]!;
    expect(await store.io.script(advanceFrontierCall(keys, { offset: 4n, fromOffset: 3n, expected: 2n, runId }), 'write')).toEqual([
      1,
      Buffer.from('0000000000000009'),
    ]);
    expect(await store.frontier()).toEqual({ offset: 9n });
    await f.admin.set(keys.frontier, 'not-a-frontier-x');
    await expect(store.frontier()).rejects.toMatchObject({ code: 'CORRUPT_ENTRY' });
    await expect(store.applyPage(pageOf(10n, 10n, []))).rejects.toMatchObject({ code: 'CORRUPT_ENTRY' });
  });

  it('the duplicate memory ends at createdAt + dispatchDedupeMs: a later sight is a new dispatch', async () => {
    const store = f.open();
    const u = rid();
    const r = f.record([u]);
    await store.applyPage(pageOf(0n, 0n, [[0n, r]]));
    f.clock.set(r.createdAt + SPEC_GC.dispatchDedupeMs - 1n);
    expect((await store.applyPage(pageOf(1n, 1n, [[1n, r]]))).outcomes[0]!.outcome).toBe('duplicate');
    f.clock.set(r.createdAt + SPEC_GC.dispatchDedupeMs);
    const report = await store.applyPage(pageOf(2n, 2n, [[2n, r]]));
    expect(report.outcomes[0]).toMatchObject({ outcome: 'applied', canonicalOffset: 2n });
    expect(await seqsOf(store, u)).toEqual([f.seq(0n), f.seq(2n)]);
  });

  it.each([
    ['after some entries', { crashAfterEntries: 2 }, 2],
    ['after all entries, before the frontier', { crashBeforeFrontier: true }, 4],
  ])('a crash %s leaves entries above the frontier; applying the page again completes it', async (_name, faults, durable) => {
    const users = [rid(), rid(), rid(), rid()].sort();
    const page = pageOf(0n, 0n, [[0n, f.record(users)]]);
    await expect(f.open(SPEC_GC, faults).applyPage(page)).rejects.toBeInstanceOf(SimulatedCrashError);
    const store = f.open();
    expect(await store.frontier()).toEqual({ offset: null });
    const written = await Promise.all(users.map((u) => seqsOf(store, u)));
    expect(written.filter((s) => s.length === 1)).toHaveLength(durable);
    expect(await store.applyPage(page)).toMatchObject({ frontier: 0n, entriesWritten: 4 });
    for (const u of users) expect(await seqsOf(store, u)).toEqual([f.seq(0n)]);
  });

  it('bounded in flight: a 300-recipient dispatch with a window of 4 writes every entry', async () => {
    const store = f.open(SPEC_GC, undefined, 4);
    const users = Array.from({ length: 300 }, rid);
    expect(await store.applyPage(pageOf(0n, 0n, [[0n, f.record(users)]]))).toMatchObject({ entriesWritten: 300 });
    const seen = await Promise.all(users.map((u) => seqsOf(store, u)));
    expect(seen.every((s) => s.length === 1 && s[0] === f.seq(0n))).toBe(true);
  });
});
