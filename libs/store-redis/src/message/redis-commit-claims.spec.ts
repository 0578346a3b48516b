import { randomBytes } from 'node:crypto';
import {
  COMMIT_AUX_TTL_MS,
  DurableMessageCommitter,
  RecoveryRunner,
  encodeMessageRecord,
  encodeSendRequest,
  identityOfEncodedRequest,
  recordFromIntent,
} from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import type { Id128, OutboxPublisher, Publication, SendRequest } from '@qim/store-core';
import type { Redis } from 'ioredis';
import { countSocketWrites } from '../redis/socket-writes';
import { dropNamespace, onCluster, testClient, testNamespace } from '../testing/redis-test-env';
import { claimCommitCall, claimSeqCall, isCountable, putRecordCall } from './message-script-args';
import { RedisMessageStore } from './redis-message-store';
import { packIds, seqClaimBody } from './seq-claim-value';

const rid = (): Id128 => randomBytes(16).toString('hex') as Id128;
const GRACE = 60_000n;

class Broker implements OutboxPublisher {
  readonly published: Id128[] = [];
  async publish(intent: { messageId: Id128 }): Promise<Publication> {
    this.published.push(intent.messageId);
    return { topic: 'qim.messages', partition: 0, offset: BigInt(this.published.length) };
  }
}

/**
 * What a writer that dies inside one round trip leaves behind (the two halves of the reserve write,
 * or the record without its RECORDED move), and what the next reserve or the recovery runner makes
 * of it: the claimed seq is reused by the same request, never spent twice, never given to another.
 */
describe('Redis commit: partial writes and seq claims', () => {
  let redis: Redis;
  let namespace: string;
  let clock: ManualClock;
  let store: RedisMessageStore;
  const tenantId = rid();
  beforeEach(() => {
    redis = testClient();
    namespace = testNamespace();
    clock = new ManualClock(BigInt(Date.now()));
    store = new RedisMessageStore({ redis, namespace, clock, physicalGraceMs: GRACE, ownsConnection: false });
  });
  // dropNamespace SCANs the whole shared server: far beyond Jest's 5 s hook default when it holds millions of keys
  afterEach(async () => {
    await dropNamespace(redis, namespace);
    await redis.quit();
  }, 120_000);

  const requestIn = (conversationId: Id128): SendRequest => ({
    tenantId,
    senderId: rid(),
    clientMessageId: rid(),
    conversationId,
    kind: 'normal',
    control: false,
    contentType: 'text/plain',
    body: randomBytes(32),
    retention: { kind: 'default' },
  });
  const claimArgs = (req: SendRequest) => {
    const bytes = encodeSendRequest(req);
    return {
      now: clock.nowMs(),
      identity: identityOfEncodedRequest(bytes),
      request: bytes,
      createdAt: clock.nowMs() - 60_000n,
      auxExpiresAt: clock.nowMs() + COMMIT_AUX_TTL_MS,
      graceMs: GRACE,
    };
  };
  const commitKeys = (req: SendRequest) => store.keys.commit({ tenantId, senderId: req.senderId, clientMessageId: req.clientMessageId });
  const reserveOf = (req: SendRequest) => ({ request: req, messageId: rid(), createdAt: clock.nowMs() - 60_000n, recipients: [req.senderId] });

  it('only the seq claim landed: the retry adopts the claimed seq and candidates; the next request gets the next seq', async () => {
    const conv = rid();
    const req = requestIn(conv);
    const messageId = rid();
    const a = claimArgs(req);
    await store.io.script(claimSeqCall(store.keys.conversation(tenantId, conv), commitKeys(req).member, { ...a, messageId }), 'write');
    expect(await store.loadCommit({ tenantId, senderId: req.senderId, clientMessageId: req.clientMessageId })).toBeNull();

    const retry = await store.reserve(reserveOf(req));
    expect(retry.created).toBe(true);
    expect([retry.snapshot.intent.seq, retry.snapshot.intent.messageId, retry.snapshot.intent.createdAt]).toEqual([1n, messageId, a.createdAt]);
    expect((await store.reserve(reserveOf(requestIn(conv)))).snapshot.intent.seq).toBe(2n);
  });

  it('only the commit claim landed: not reserved (load null, recovery skips it), no seq spent; the retry completes it', async () => {
    const conv = rid();
    const req = requestIn(conv);
    await store.io.script(claimCommitCall(commitKeys(req), { ...claimArgs(req), recipients: packIds([req.senderId]) }), 'write');
    const key = { tenantId, senderId: req.senderId, clientMessageId: req.clientMessageId };
    expect(await store.loadCommit(key)).toBeNull();
    expect(await store.scanRecoverableCommits(clock.nowMs(), 10)).toEqual([]);

    const retry = await store.reserve(reserveOf(req));
    expect(retry.created).toBe(false);
    expect(retry.snapshot.intent.seq).toBe(1n);
    expect(await store.loadCommit(key)).toEqual(retry.snapshot);
    expect((await store.scanRecoverableCommits(clock.nowMs(), 10)).map((s) => s.intent.key)).toEqual([key]);
  });

  it('the record landed but not RECORDED: recovery finishes the commit with that one record', async () => {
    const conv = rid();
    const req = requestIn(conv);
    const { snapshot } = await store.reserve(reserveOf(req));
    const r = recordFromIntent(snapshot.intent);
    const call = putRecordCall(store.keys.conversation(tenantId, conv), commitKeys(req).member, {
      seq: r.seq,
      record: encodeMessageRecord(r),
      expiresAt: null,
      countable: isCountable(r.kind, r.control),
      senderId: r.senderId,
      graceMs: GRACE,
      now: clock.nowMs(),
      claim: seqClaimBody(snapshot.intent),
    });
    await store.io.script(call, 'write');
    expect((await store.loadCommit(snapshot.intent.key))?.state).toBe('RESERVED');

    const broker = new Broker();
    const report = await new RecoveryRunner(store, new DurableMessageCommitter(store, broker), { graceMs: 30_000n, maxItems: 10, clock }).runOnce();
    expect(report).toMatchObject({ examined: 1, completed: 1, failed: 0 });
    expect((await store.loadCommit(snapshot.intent.key))?.state).toBe('COMMITTED');
    const page = await store.historyPage({ canReadHistory: async () => true }, { tenantId, userId: req.senderId }, conv, {
      direction: 'newer',
      anchor: null,
      maxItems: 10,
      maxBytes: 1 << 20,
    });
    expect(page.items.map((i) => [i.record.seq, i.record.messageId])).toEqual([[1n, snapshot.intent.messageId]]);
    expect(broker.published).toEqual([snapshot.intent.messageId]);
  });

  it("a putRecord for a seq claim that is not the intent's writes nothing (Conflict), whatever its seq", async () => {
    const conv = rid();
    const { snapshot } = await store.reserve(reserveOf(requestIn(conv)));
    const forged = { ...snapshot.intent, seq: 2n };
    await expect(store.putRecord(forged, recordFromIntent(forged))).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await redis.exists(store.keys.conversation(tenantId, conv).record(2n))).toBe(0);
    expect(await redis.exists(store.keys.conversation(tenantId, conv).record(1n))).toBe(0);
  });

  it('the seq claim lives as long as the commit facts: physical expiry at aux expiry + grace', async () => {
    const conv = rid();
    const req = requestIn(conv);
    const reservedAt = clock.nowMs();
    await store.reserve(reserveOf(req));
    const claimKey = store.keys.conversation(tenantId, conv).seqClaim(commitKeys(req).member);
    expect(Number(await redis.call('PEXPIRETIME', claimKey))).toBe(Number(reservedAt + COMMIT_AUX_TTL_MS + GRACE));
    expect(Number(await redis.call('PEXPIRETIME', commitKeys(req).hash))).toBe(Number(reservedAt + COMMIT_AUX_TTL_MS + GRACE));
  });

  // A Cluster client has one socket per node: the count of one standalone connection's writes is the
  // standalone target's; the command count holds on both targets.
  it("the committer's happy path is 5 commands, and 4 client round trips (socket writes) on a standalone connection", async () => {
    await store.reserve(reserveOf(requestIn(rid())));
    // Socket writes, not `write()` calls: corked writes leave in one `_writev`.
    const writes = onCluster() ? null : countSocketWrites(redis);
    const commands = store.io.reads + store.io.writes;
    const out = await new DurableMessageCommitter(store, new Broker()).send(reserveOf(requestIn(rid())));
    writes?.restore();
    expect(out.replay).toBe(false);
    if (writes !== null) expect(writes.count()).toBe(4);
    expect(store.io.reads + store.io.writes - commands).toBe(5);
  });
});
