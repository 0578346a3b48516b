import { randomBytes } from 'node:crypto';
import { DAY_MS, composeMailboxSeq, dayOf, entryExpiry, epochStartSeq, recordFromIntent } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import type { DispatchRecord, Id128, SendRequest } from '@qim/store-core';
import type { Redis } from 'ioredis';
import { RedisMailboxStore } from '../mailbox/redis-mailbox-store';
import { RedisMessageStore } from '../message/redis-message-store';
import { COMMIT_AUX_TTL_MS } from '@qim/store-core';
import { dropNamespace, testClient, testNamespace } from '../testing/redis-test-env';

const rid = (): Id128 => randomBytes(16).toString('hex') as Id128;
const GRACE = 60_000n;

/**
 * Physical clean-up under caller time: Redis-native expiry is set once at (logical expiry + grace),
 * never renewed, never before a logical expiry; bounded housekeeping deletes only what is logically
 * expired and counts it.
 */
describe('physical clean-up of the Redis backends', () => {
  let redis: Redis;
  let namespace: string;
  let clock: ManualClock;
  beforeEach(() => {
    redis = testClient();
    namespace = testNamespace();
    clock = new ManualClock(BigInt(Date.now()));
  });
  // dropNamespace SCANs the whole shared server: far beyond Jest's 5 s hook default when it holds millions of keys
  afterEach(async () => {
    await dropNamespace(redis, namespace);
    await redis.quit();
  }, 120_000);
  const pexpiretime = async (key: string): Promise<number> => Number(await redis.call('PEXPIRETIME', key));
  const mailboxStore = (shardEpoch: { shard: number; epoch: number }, gc: { entryRetentionMs: bigint; dispatchDedupeMs: bigint }): RedisMailboxStore =>
    new RedisMailboxStore({ redis, namespace, clock, physicalGraceMs: GRACE, ownsConnection: false, shardEpoch, gc });

  it('commit facts: physical expiry at aux expiry + grace; gcCommittedAuxiliary reclaims them after the logical expiry', async () => {
    const store = new RedisMessageStore({ redis, namespace, clock, physicalGraceMs: GRACE, ownsConnection: false });
    const req: SendRequest = {
      tenantId: rid(),
      senderId: rid(),
      clientMessageId: rid(),
      conversationId: rid(),
      kind: 'normal',
      control: false,
      contentType: 't',
      body: Buffer.from('x'),
      retention: { kind: 'default' },
    };
    const reservedAt = clock.nowMs();
    const { snapshot } = await store.reserve({ request: req, messageId: rid(), createdAt: reservedAt, recipients: [] });
    const keys = store.keys.commit(snapshot.intent.key);
    expect(await pexpiretime(keys.hash)).toBe(Number(reservedAt + COMMIT_AUX_TTL_MS + GRACE));
    clock.advance(1000n);
    await store.putRecord(snapshot.intent, recordFromIntent(snapshot.intent));
    expect(await pexpiretime(keys.hash)).toBe(Number(reservedAt + COMMIT_AUX_TTL_MS + GRACE));
    expect(await redis.pttl(store.keys.conversation(req.tenantId, req.conversationId).record(snapshot.intent.seq))).toBe(-1);

    expect(await store.gcCommittedAuxiliary(clock.nowMs(), 10)).toEqual({ examined: 0, reclaimed: 0, more: false });
    clock.set(reservedAt + COMMIT_AUX_TTL_MS);
    expect(await store.gcCommittedAuxiliary(clock.nowMs(), 10)).toEqual({ examined: 1, reclaimed: 1, more: false });
    expect(await redis.exists(keys.hash)).toBe(0);
    expect(await redis.zcard(keys.recovery)).toBe(0);
    expect(await redis.zcard(keys.aux)).toBe(0);
  });

  it('ephemeral history: record expiry at created_at + ttl + grace; gcExpiredHistory deletes record and index row, bounded and counted', async () => {
    const store = new RedisMessageStore({ redis, namespace, clock, physicalGraceMs: GRACE, ownsConnection: false });
    const tenantId = rid();
    const conv = rid();
    const seqs: bigint[] = [];
    for (let i = 0; i < 3; i++) {
      const req: SendRequest = {
        tenantId,
        senderId: rid(),
        clientMessageId: rid(),
        conversationId: conv,
        kind: 'normal',
        control: false,
        contentType: 't',
        body: Buffer.from('x'),
        retention: { kind: 'ephemeral', ttlSeconds: 5 },
      };
      const { snapshot } = await store.reserve({ request: req, messageId: rid(), createdAt: clock.nowMs(), recipients: [] });
      await store.putRecord(snapshot.intent, recordFromIntent(snapshot.intent));
      seqs.push(snapshot.intent.seq);
    }
    const c = store.keys.conversation(tenantId, conv);
    expect(await pexpiretime(c.record(seqs[0]!))).toBe(Number(clock.nowMs() + 5000n + GRACE));
    expect(await store.gcExpiredHistory(clock.nowMs(), 10)).toMatchObject({ reclaimed: 0 });
    clock.advance(5000n);
    expect(await store.gcExpiredHistory(clock.nowMs(), 2)).toEqual({ examined: 2, reclaimed: 2, more: true });
    expect(await store.gcExpiredHistory(clock.nowMs(), 10)).toEqual({ examined: 1, reclaimed: 1, more: false });
    for (const s of seqs) expect(await redis.exists(c.record(s))).toBe(0);
    expect(await redis.zcard(c.index)).toBe(0);
    expect(await redis.zscore(c.registry, c.member)).toBeNull();
  });

  it(
    'mailbox: a day index (holding the entries) gets its expiry once, a replay never renews it, a later entry raises it; ' +
      'a live day’s proof has none until its day is consumed',
    async () => {
      const store = mailboxStore({ shard: 3, epoch: 4 }, { entryRetentionMs: DAY_MS, dispatchDedupeMs: DAY_MS });
      const tenantId = rid();
      const userId = rid();
      const createdAt = clock.nowMs();
      const entry = { tenantId, userId, mailboxSeq: composeMailboxSeq(4, 10n), createdAt, events: [{ ordinal: 0, eventId: rid(), payload: Buffer.from('p') }] };
      await store.appendBatch([entry]);
      const u = store.keys.user(tenantId, userId);
      const day = u.dayIndex(4, dayOf(createdAt));
      const expiry = entryExpiry(createdAt, DAY_MS);
      expect(await pexpiretime(day)).toBe(Number(expiry + GRACE));
      expect(await redis.pttl(u.proof(dayOf(createdAt)))).toBe(-1);
      clock.advance(3_600_000n);
      await store.appendBatch([entry]);
      expect(await pexpiretime(day)).toBe(Number(expiry + GRACE));
      expect(await redis.zcard(day)).toBe(1);

      // A store with a longer retention writes a later-expiring entry into the same day: the key lives to it.
      const longer = mailboxStore({ shard: 3, epoch: 4 }, { entryRetentionMs: 2n * DAY_MS, dispatchDedupeMs: DAY_MS });
      await longer.appendBatch([{ ...entry, mailboxSeq: composeMailboxSeq(4, 11n), createdAt: createdAt + 1n }]);
      const later = entryExpiry(createdAt + 1n, 2n * DAY_MS);
      expect(await pexpiretime(day)).toBe(Number(later + GRACE));
      await store.appendBatch([{ ...entry, mailboxSeq: composeMailboxSeq(4, 12n), createdAt: createdAt + 2n }]);
      expect(await pexpiretime(day)).toBe(Number(later + GRACE));

      clock.set(expiry);
      const top = composeMailboxSeq(4, 100n);
      await expect(store.rangeScan(tenantId, userId, epochStartSeq(4), top, 10)).rejects.toMatchObject({
        code: 'CURSOR_EXPIRED',
        boundary: composeMailboxSeq(4, 12n),
      });
      expect(await pexpiretime(u.proof(dayOf(createdAt)))).toBe(Number(expiry + GRACE));
      expect(await redis.exists(day)).toBe(1);
    },
  );

  it('dispatch index: physical expiry at createdAt + dedupe + grace, never renewed by a later sight; the frontier has none', async () => {
    const dedupe = 10_000n;
    const store = mailboxStore({ shard: 5, epoch: 1 }, { entryRetentionMs: DAY_MS, dispatchDedupeMs: dedupe });
    const createdAt = clock.nowMs();
    const record: DispatchRecord = {
      dispatchId: rid(),
      tenantId: rid(),
      shard: 5,
      messageId: rid(),
      conversationId: rid(),
      seq: 1n,
      createdAt,
      recipients: [rid()].sort(),
      events: [{ ordinal: 0, eventId: rid(), payload: Buffer.from('p') }],
    };
    await store.applyPage({ fromOffset: 0n, toOffset: 0n, records: [{ offset: 0n, record }] });
    const s = store.keys.shardFrontier(5, 1);
    const row = s.dispatchIndex(record.dispatchId);
    expect(await pexpiretime(row)).toBe(Number(createdAt + dedupe + GRACE));
    expect(await redis.pttl(s.frontier)).toBe(-1);
    clock.advance(5_000n);
    const again = await store.applyPage({ fromOffset: 1n, toOffset: 1n, records: [{ offset: 1n, record }] });
    expect(again.outcomes).toEqual([{ offset: 1n, dispatchId: record.dispatchId, outcome: 'duplicate', canonicalOffset: 0n }]);
    expect(await pexpiretime(row)).toBe(Number(createdAt + dedupe + GRACE));
    expect(await store.frontier()).toEqual({ offset: 1n });
  });
});
