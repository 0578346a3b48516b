import { ManualClock } from '@qim/store-core';
import type { MailboxStore } from '@qim/store-core';
import type { MailboxStoreHarness } from '@qim/store-contract/testing';
import { RedisKeys } from '../keys/redis-keys';
import { u64FromHex16 } from '../redis/hex64';
import { RedisIo } from '../redis/redis-io';
import { ScriptReply } from '../redis/script-reply';
import { countDispatchFactsCall } from '../mailbox/mailbox-script-args';
import { RedisMailboxStore } from '../mailbox/redis-mailbox-store';
import { dropNamespace, testClient, testNamespace } from './redis-test-env';

/**
 * Contract harness of `RedisMailboxStore`: one namespace and ManualClock (starting at the real time)
 * per harness; every opened store gets its own client and shares the namespace.
 */
export async function openRedisMailboxHarness(): Promise<MailboxStoreHarness> {
  const admin = testClient();
  const adminIo = new RedisIo(admin);
  const namespace = testNamespace();
  const keys = new RedisKeys(namespace);
  const clock = new ManualClock(BigInt(Date.now()));
  const stores: MailboxStore[] = [];
  return {
    clock,
    open: async (shardEpoch, gc) => {
      const store = new RedisMailboxStore({ redis: testClient(), namespace, clock, shardEpoch, gc });
      stores.push(store);
      return store;
    },
    removeBucketProof: async (tenantId, userId, epoch, day) => {
      await admin.hdel(keys.user(tenantId, userId).proof(day), String(epoch));
    },
    readTrim: async (tenantId, userId) => {
      const v = await admin.get(keys.user(tenantId, userId).trim);
      return v === null ? null : u64FromHex16(v, 'trim');
    },
    corruptEntry: async (tenantId, userId, mailboxSeq) => {
      await admin.set(keys.user(tenantId, userId).entry(mailboxSeq), Buffer.from('not an entry'), 'KEEPTTL');
    },
    removeChunkCompletion: async (shard, dispatchId, lane, chunkId) => {
      const removed = await admin.hdel(keys.shard(shard).chunks(dispatchId), `${lane}:${chunkId}`);
      if (removed !== 1) throw new Error(`no completion of chunk ${chunkId} of lane ${lane} to remove`);
    },
    countDispatchFacts: async (shard, dispatchId) => {
      const reply = ScriptReply.of(await adminIo.script(countDispatchFactsCall(keys.shard(shard), clock.nowMs(), dispatchId), 'read'), 'countDispatchFacts');
      return reply.int(0);
    },
    close: async () => {
      await Promise.all(stores.map((s) => s.close()));
      await dropNamespace(admin, namespace);
      await admin.quit();
    },
  };
}
