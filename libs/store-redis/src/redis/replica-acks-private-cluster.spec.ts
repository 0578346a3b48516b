import { UnavailableError, composeMailboxSeq, epochStartSeq } from '@qim/store-core';
import { ManualClock } from '@qim/store-core/testing';
import type { DispatchRecord } from '@qim/store-core';
import type { Cluster } from 'ioredis';
import { keySlot } from '../keys/key-slot';
import { RedisKeys } from '../keys/redis-keys';
import { RedisMailboxStore } from '../mailbox/redis-mailbox-store';
import { PrivateRedisCluster } from '../testing/private-redis-cluster';
import { SPEC_GC, pageOf, rid } from '../testing/redis-mailbox-fixture';
import { connectRedis } from './connect-redis';
import { u64ToHex16 } from './hex64';
import { parseClusterNodes } from './redis-target';

/**
 * Replica acks across primaries (ADR-0038, update of stop 35): on a cluster a page's entries and
 * its frontier live on different primaries, i.e. in different replication streams. The frontier
 * vouches for the entries below it, so it must not reach a replica before they do: a promoted
 * replica of the entries' primary would otherwise serve a frontier above entries it lacks, cursors
 * would move past them, and the retried page — behind that frontier — would never write them again.
 * A private cluster of this spec (two primaries, one replica each; standalone-only target: it starts
 * its own servers); the entries' replica is frozen with SIGSTOP.
 */
describe('replica acks on a private cluster: a page’s frontier waits for its entries’ replicas', () => {
  let servers: PrivateRedisCluster;
  let client: Cluster;
  beforeAll(async () => {
    servers = await PrivateRedisCluster.start(2);
    client = (await connectRedis(parseClusterNodes(servers.seeds))) as Cluster;
  }, 60_000);
  afterAll(async () => {
    client?.disconnect();
    await servers?.stop();
  });

  it('a page whose entries’ replica does not answer fails before its frontier moves, and is applied by its retry once the replica is back', async () => {
    const namespace = `acks-${rid().slice(0, 8)}`;
    const keys = new RedisKeys(namespace);
    const epoch = 3;
    const clock = new ManualClock(BigInt(Date.now()));
    const tenantId = rid();
    // The frontier on the second primary, the user's mailbox on the first.
    let shard = 1;
    while (servers.shardOf(keySlot(keys.shardFrontier(shard, epoch).frontier)) !== servers.shards[1]) shard++;
    let user = rid();
    while (servers.shardOf(keySlot(keys.user(tenantId, user).meta)) !== servers.shards[0]) user = rid();
    const [entries, frontiers] = [servers.shards[0]!, servers.shards[1]!];
    const frontierKey = keys.shardFrontier(shard, epoch).frontier;

    const store = new RedisMailboxStore({
      redis: client,
      namespace,
      clock,
      shardEpoch: { shard, epoch },
      gc: SPEC_GC,
      replicaAcks: { min: 1, timeoutMs: 1_500 },
      ownsConnection: false,
    });
    const record = (): DispatchRecord => ({
      dispatchId: rid(),
      tenantId,
      shard,
      messageId: rid(),
      conversationId: rid(),
      seq: 1n,
      createdAt: clock.nowMs(),
      recipients: [user],
      events: [{ ordinal: 0, eventId: rid(), payload: Buffer.from('hello') }],
    });
    await store.applyPage(pageOf(0n, 0n, [[0n, record()]]));
    expect(await frontiers.direct.primary.get(frontierKey)).toBe(u64ToHex16(0n));

    const second = pageOf(1n, 1n, [[1n, record()]]);
    entries.replica.freeze();
    try {
      await expect(store.applyPage(second)).rejects.toThrow(UnavailableError);
      // The entry is on its primary only: the frontier must not vouch for it yet, on any node.
      expect(await frontiers.direct.primary.get(frontierKey)).toBe(u64ToHex16(0n));
    } finally {
      entries.replica.thaw();
    }

    await store.applyPage(second);
    expect(await frontiers.direct.primary.get(frontierKey)).toBe(u64ToHex16(1n));
    const page = await store.rangeScan(tenantId, user, epochStartSeq(epoch), composeMailboxSeq(epoch, 1n), 10);
    expect(page.entries.map((e) => e.mailboxSeq)).toEqual([composeMailboxSeq(epoch, 0n), composeMailboxSeq(epoch, 1n)]);
    await store.close();
  }, 30_000);
});
