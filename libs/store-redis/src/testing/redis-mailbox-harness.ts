import { ManualClock } from '@qim/store-core/testing';
import type { MailboxStore } from '@qim/store-core';
import type { MailboxStoreHarness } from '@qim/store-contract/testing';
import { RedisKeys } from '../keys/redis-keys';
import { u64FromHex16, u64ToHex16 } from '../redis/hex64';
import { RedisMailboxStore } from '../mailbox/redis-mailbox-store';
import { dropNamespace, keysMatching, testClient, testNamespace } from './redis-test-env';

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
    open: async (shardEpoch, gc, faults, clockLagMs = 0n) => {
      const storeClock = clockLagMs === 0n ? clock : { nowMs: () => clock.nowMs() - clockLagMs };
      const store = new RedisMailboxStore({ redis: testClient(), namespace, clock: storeClock, shardEpoch, gc, faults });
      stores.push(store);
      return store;
    },
    removeBucketProof: async (tenantId, userId, epoch, day) => {
      const proof = keys.user(tenantId, userId).proof(day);
      const members = (await admin.zrange(proof, 0, -1)).filter((m) => m.startsWith(`${epoch}:`));
      if (members.length > 0) await admin.zrem(proof, ...members);
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
      // The entry is a member (seq + bytes) of one of the user's day indexes: replace its bytes.
      const seq = u64ToHex16(mailboxSeq, 'seq');
      const days = await keysMatching(admin, `${keys.user(tenantId, userId).prefix}day:*`);
      for (const day of days) {
        const members = await admin.zrangebylexBuffer(day, `[${seq}`, `(${u64ToHex16(mailboxSeq + 1n, 'seq')}`);
        if (members.length === 0) continue;
        await admin.zrem(day, ...members);
        await admin.zadd(day, 0, Buffer.concat([Buffer.from(seq), Buffer.from('not an entry')]));
      }
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
