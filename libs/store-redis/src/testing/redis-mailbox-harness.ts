import { ManualClock } from '@qim/store-core';
import type { MailboxStore } from '@qim/store-core';
import type { MailboxStoreHarness } from '@qim/store-contract/testing';
import { RedisKeys } from '../keys/redis-keys';
import { u64FromHex16 } from '../redis/hex64';
import { RedisMailboxStore } from '../mailbox/redis-mailbox-store';
import { dropNamespace, testClient, testNamespace } from './redis-test-env';

/**
 * Contract harness of `RedisMailboxStore`: one namespace and ManualClock (starting at the real time)
 * per harness; every opened store gets its own client and shares the namespace. Faults are handed
 * to the store (its `faults` option).
 */
export async function openRedisMailboxHarness(): Promise<MailboxStoreHarness> {
  const admin = testClient();
  const namespace = testNamespace();
  const keys = new RedisKeys(namespace);
  const clock = new ManualClock(BigInt(Date.now()));
  const stores: MailboxStore[] = [];
  return {
    clock,
    open: async (shardEpoch, gc, faults) => {
      const store = new RedisMailboxStore({ redis: testClient(), namespace, clock, shardEpoch, gc, faults });
      stores.push(store);
      return store;
    },
    removeBucketProof: async (tenantId, userId, epoch, day) => {
      await admin.hdel(keys.user(tenantId, userId).proof(day), String(epoch));
    },
    damageRetentionMeta: async (tenantId, userId, damage) => {
      const meta = keys.user(tenantId, userId).meta;
      if (damage === 'old-version') await admin.hset(meta, 'v', '3');
      else await admin.hdel(meta, 'ledger');
    },
    readTrim: async (tenantId, userId) => {
      const v = await admin.get(keys.user(tenantId, userId).trim);
      return v === null ? null : u64FromHex16(v, 'trim');
    },
    corruptEntry: async (tenantId, userId, mailboxSeq) => {
      await admin.set(keys.user(tenantId, userId).entry(mailboxSeq), Buffer.from('not an entry'), 'KEEPTTL');
    },
    dispatchIndexed: async (shardEpoch, dispatchId) => {
      const row = await admin.getBuffer(keys.shardFrontier(shardEpoch.shard, shardEpoch.epoch).dispatchIndex(dispatchId));
      if (row === null) return false;
      return u64FromHex16(row.subarray(16, 32), 'dispatch index expiry') > clock.nowMs();
    },
    close: async () => {
      await Promise.all(stores.map((s) => s.close()));
      await dropNamespace(admin, namespace);
      await admin.quit();
    },
  };
}
