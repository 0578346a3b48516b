import { randomBytes } from 'node:crypto';
import { DurableMessageCommitter } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import type { Id128, OutboxPublisher, Publication, ReserveInput, SendRequest } from '@qim/store-core';
import type { Cluster } from 'ioredis';
import { keySlot } from '../keys/key-slot';
import { RedisKeys } from '../keys/redis-keys';
import { RedisMessageStore } from '../message/redis-message-store';
import { RedisMailboxStore } from '../mailbox/redis-mailbox-store';
import { RedisMailboxFixture, SPEC_GC, pageOf } from '../testing/redis-mailbox-fixture';
import { dropNamespace, requireRedisCluster, testClient, testNamespace } from '../testing/redis-test-env';
import { RedisWriterCoordination } from '../writer-coordination/redis-writer-coordination';
import { connectRedis } from './connect-redis';
import { checkRedisReadiness } from '../readiness/redis-readiness';
import { RedisIo } from './redis-io';
import { ReplicaFence } from './replica-acks';

const rid = (): Id128 => randomBytes(16).toString('hex') as Id128;

class Broker implements OutboxPublisher {
  readonly published: Id128[] = [];
  async publish(intent: { messageId: Id128 }): Promise<Publication> {
    this.published.push(intent.messageId);
    return { topic: 'qim.messages', partition: 0, offset: BigInt(this.published.length) };
  }
}

/**
 * What only the cluster target shows (jest.redis-cluster.config.js): a script call over two slots
 * fails, readiness reads every primary, and acknowledged writes wait for replicas (ADR-0038).
 */
describe('store-redis on a Redis Cluster', () => {
  let cluster: Cluster;
  let namespace: string;
  beforeAll(async () => {
    cluster = (await connectRedis(requireRedisCluster())) as Cluster;
    namespace = testNamespace();
  });
  afterAll(async () => {
    await dropNamespace(cluster, namespace);
    await cluster.quit();
  }, 120_000);

  it('a script call whose keys lie in two slots fails the step (CROSSSLOT), as it would fail the suite', async () => {
    const keys = new RedisKeys(namespace);
    const a = keys.writerLease(1);
    // A key served by another primary: a node answers an undeclared key of a slot it serves itself
    // (Redis 7.0), so a key that merely lies in another slot would pass one time in three.
    const ownerOf = (key: string): string | undefined => cluster.slots[keySlot(key)]?.[0];
    let other = keys.conversation(rid(), rid()).seq;
    while (ownerOf(other) === ownerOf(a.lease)) other = keys.conversation(rid(), rid()).seq;
    expect(ownerOf(a.lease)).toBeDefined();
    expect(keySlot(a.lease)).not.toBe(keySlot(other));
    const io = new RedisIo(cluster);
    const call = { script: 'leaseAcquireV1' as const, keys: [a.lease, other], args: ['tok', '1000'] };
    await expect(io.script(call, 'write')).rejects.toMatchObject({ code: 'INVARIANT_VIOLATION', message: expect.stringMatching(/CROSSSLOT/) });
    // A key a script builds from an ARGV prefix, of a slot another node serves, is refused by the node as well.
    const lua = "return redis.call('GET', ARGV[1])";
    await expect(cluster.eval(lua, 1, a.lease, other)).rejects.toThrow(/non local key|another slot|Cross slot|different slot/i);
  });

  it('keySlot places keys as the cluster does (the WAIT routing relies on it)', async () => {
    const keys = new RedisKeys(namespace);
    const sample = [
      keys.writerLease(7).lease,
      keys.conversation(rid(), rid()).seq,
      keys.commit({ tenantId: rid(), senderId: rid(), clientMessageId: rid() }).hash,
    ];
    for (const key of sample) expect(keySlot(key)).toBe(Number(await cluster.cluster('KEYSLOT', key)));
  });

  it('each primary gets a replica-ack fence key in one of its own slots, in the namespace', async () => {
    const fence = new ReplicaFence(new RedisKeys(namespace));
    const masters = cluster.nodes('master');
    const keys = masters.map((m) => fence.keyFor(cluster, m));
    expect(new Set(keys).size).toBe(masters.length);
    for (const [i, m] of masters.entries()) {
      const key = keys[i]!;
      expect(key).toMatch(new RegExp(`^${namespace}:\\{fence:\\d+\\}:wait$`));
      // The primary serves it itself: a MOVED would mean the fence lands on another primary.
      expect(await m.set(key, '1', 'PX', 1_000)).toBe('OK');
      expect(fence.keyFor(cluster, m)).toBe(key);
    }
  });

  it('readiness checks cluster_state and every primary; replica acks beyond the replicas online are not ready', async () => {
    const ok = await checkRedisReadiness(cluster, 'test', 1);
    expect(ok).toMatchObject({ ready: true, appendonly: 'yes', appendfsync: 'always', reason: null });
    const tooMany = await checkRedisReadiness(cluster, 'test', 2);
    expect(tooMany.ready).toBe(false);
    expect(tooMany.reason).toMatch(/redis cluster primary 127\.0\.0\.1:\d+ has 1 replica\(s\) online; every acknowledged write waits for 2/);
  });

  describe('a send with replica acks', () => {
    const clock = new ManualClock(BigInt(Date.now()));
    const request = (): SendRequest => ({
      tenantId: rid(),
      senderId: rid(),
      clientMessageId: rid(),
      conversationId: rid(),
      kind: 'normal',
      control: false,
      contentType: 'text/plain',
      body: randomBytes(32),
      retention: { kind: 'default' },
    });
    const reserveOf = (req: SendRequest): ReserveInput => ({ request: req, messageId: rid(), createdAt: clock.nowMs(), recipients: [req.senderId] });
    const storeWith = (min: number, timeoutMs: number) =>
      new RedisMessageStore({ redis: cluster, namespace, clock, ownsConnection: false, replicaAcks: { min, timeoutMs } });

    it('is acknowledged once a replica of each written primary has it', async () => {
      const req = request();
      const out = await new DurableMessageCommitter(storeWith(1, 2_000), new Broker()).send(reserveOf(req));
      expect(out.seq).toBe(1n);
    });

    it('fails with UnavailableError within the bound when too few replicas answer; a retry of the same send is answered identically, once', async () => {
      const req = request();
      const broker = new Broker();
      const started = Date.now();
      await expect(new DurableMessageCommitter(storeWith(2, 300), broker).send(reserveOf(req))).rejects.toMatchObject({
        code: 'UNAVAILABLE',
        message: expect.stringMatching(/putRecord: the write reached 1 of the 2 replica\(s\) required within 300 ms/),
      });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(broker.published).toEqual([]);
      const committer = new DurableMessageCommitter(storeWith(1, 2_000), broker);
      const first = await committer.send(reserveOf(req));
      const again = await committer.send(reserveOf(req));
      expect(first.seq).toBe(1n);
      expect({ seq: again.seq, messageId: again.intent.messageId }).toEqual({ seq: first.seq, messageId: first.intent.messageId });
      expect(again.replay).toBe(true);
      expect(broker.published).toEqual([first.intent.messageId]);
    });
  });

  /** A mailbox store on the fixture's namespace that waits for `min` replicas (at most `timeoutMs`). */
  const mailboxWithAcks = (f: RedisMailboxFixture, min: number, timeoutMs: number): RedisMailboxStore =>
    new RedisMailboxStore({
      redis: cluster,
      ownsConnection: false,
      namespace: f.namespace,
      clock: f.clock,
      shardEpoch: f.shardEpoch,
      gc: SPEC_GC,
      replicaAcks: { min, timeoutMs },
    });

  it('mailbox: a page is reported applied only after WAIT; too few replicas → UnavailableError (the offset is not committed)', async () => {
    const f = new RedisMailboxFixture();
    const open = (min: number, timeoutMs: number) => mailboxWithAcks(f, min, timeoutMs);
    try {
      const page = pageOf(0n, 0n, [[0n, f.record([rid()])]]);
      await expect(open(2, 200).applyPage(page)).rejects.toMatchObject({
        code: 'UNAVAILABLE',
        // Refused at the entries' WAIT (their primary is not the frontier's) or at the frontier's own.
        message: expect.stringMatching(/applyPage(: entries)?: the write reached 1 of the 2/),
      });
      // The retried page (the consumer did not commit its offset) is answered once a replica has it.
      const healthy = open(1, 2_000);
      expect(await healthy.applyPage(page)).toMatchObject({ frontier: 0n });
      expect(await healthy.frontier()).toEqual({ offset: 0n });
    } finally {
      await f.close();
    }
  });

  it('mailbox: a retried page that skips its scripts (behind the frontier) still sends a fenced WAIT to every primary', async () => {
    // The first attempt's entries may sit on primaries the retry sends nothing to; only a fence SET
    // on the WAIT's own connection makes that WAIT cover them (ReplicaFence, ADR-0038).
    const f = new RedisMailboxFixture();
    const open = (min: number, timeoutMs: number) => mailboxWithAcks(f, min, timeoutMs);
    try {
      const users = Array.from({ length: 16 }, () => rid());
      const page = pageOf(0n, 0n, [[0n, f.record(users)]]);
      expect(await open(1, 2_000).applyPage(page)).toMatchObject({ frontier: 0n, wrote: true });
      const fence = new ReplicaFence(new RedisKeys(f.namespace));
      const masters = cluster.nodes('master');
      const fenceKeys = masters.map((m) => fence.keyFor(cluster, m)!);
      await Promise.all(masters.map((m, i) => m.del(fenceKeys[i]!)));

      const retry = await open(1, 2_000).applyPage(page);
      expect(retry).toMatchObject({ frontier: 0n, wrote: false });
      // Each primary got the fence write, whether or not the retry wrote anything there.
      const ttls = await Promise.all(masters.map((m, i) => m.pttl(fenceKeys[i]!)));
      for (const ttl of ttls) expect(ttl).toBeGreaterThan(0);
      // And each primary's WAIT counts: more acks than replicas fail the retry as they failed the first attempt.
      await expect(open(2, 200).applyPage(page)).rejects.toMatchObject({
        code: 'UNAVAILABLE',
        message: expect.stringMatching(/applyPage: the write reached 1 of the 2/),
      });
    } finally {
      await f.close();
    }
  });

  it('membership changes and writer leases are answered only after WAIT; too few replicas → UnavailableError, the retried change succeeds', async () => {
    // A removal only the old primary had would let a promoted replica accept the removed member's sends again.
    const ns = testNamespace();
    const open = (min: number, timeoutMs: number) =>
      RedisWriterCoordination.open(requireRedisCluster(), { namespace: ns, owner: 'spec', replicaAcks: { min, timeoutMs } });
    const [tenant, conv, user] = [rid(), rid(), rid()];
    const strict = await open(2, 200);
    try {
      await expect(strict.membership.add(tenant, conv, [user], 10)).rejects.toMatchObject({
        code: 'UNAVAILABLE',
        message: expect.stringMatching(/membership add: the write reached 1 of the 2 replica\(s\) required within 200 ms/),
      });
      await expect(strict.membership.remove(tenant, conv, [user])).rejects.toMatchObject({
        code: 'UNAVAILABLE',
        message: expect.stringMatching(/membership remove: the write reached 1 of the 2/),
      });
      await expect(strict.leases.acquire(2, 5_000, 'strict')).rejects.toMatchObject({
        code: 'UNAVAILABLE',
        message: expect.stringMatching(/lease acquire \(writer id 0\): the write reached 1 of the 2/),
      });
    } finally {
      await strict.close();
    }
    const healthy = await open(1, 2_000);
    try {
      await healthy.membership.add(tenant, conv, [user], 10);
      expect(await healthy.membership.isMember(tenant, conv, user)).toBe(true);
      await healthy.membership.remove(tenant, conv, [user]);
      expect(await healthy.membership.isMember(tenant, conv, user)).toBe(false);
      // Writer id 0 keeps the refused grant's token until its lease runs out: the next id is granted.
      expect((await healthy.leases.acquire(2, 5_000, 'healthy')).writerId).toBe(1);
    } finally {
      await healthy.close();
      await dropNamespace(cluster, ns);
    }
  });

  it('the warm-user plain path is off on a Cluster: every entry goes through the append script', async () => {
    const f = new RedisMailboxFixture();
    try {
      const store = f.open();
      let plain = 0;
      const commands = store.io.commandsPipelined.bind(store.io);
      store.io.commandsPipelined = async (cmds, kind) => {
        plain += cmds.length;
        return commands(cmds, kind);
      };
      const user = rid();
      for (let i = 0n; i < 3n; i++) await store.applyPage(pageOf(i, i, [[i, f.record([user])]]));
      expect(plain).toBe(0);
      expect((testClient() as unknown as { isCluster?: boolean }).isCluster).toBe(true);
    } finally {
      await f.close();
    }
  });
});
