import { ManualClock } from '@qim/store-core/testing';
import type { Id128 } from '@qim/store-core';
import { MESSAGE_CRASH_TEXT } from '@qim/store-contract/testing';
import type { MessageStoreHarness } from '@qim/store-contract/testing';
import { RedisMessageStore } from '../message/redis-message-store';
import { COMMIT_AUX_TTL_MS } from '@qim/store-core';
import { dropNamespace, testClient, testNamespace } from './redis-test-env';

/**
 * Contract harness of `RedisMessageStore`: a fresh namespace and client per harness (and per peer
 * store, as another writer process would connect), a ManualClock
 * starting at the real time (so logical time only ever runs ahead of the server clock and
 * Redis-native physical expiry, set beyond every logical expiry, cannot fire during a case).
 */
export async function openRedisMessageHarness(): Promise<MessageStoreHarness> {
  const redis = testClient();
  const admin = testClient();
  const namespace = testNamespace();
  const clock = new ManualClock(BigInt(Date.now()));
  const store = new RedisMessageStore({ redis, namespace, clock, commitAuxTtlMs: COMMIT_AUX_TTL_MS });
  const recordKey = (tenantId: Id128, conversationId: Id128, seq: bigint): string => store.keys.conversation(tenantId, conversationId).record(seq);
  const peers: RedisMessageStore[] = [];
  return {
    store,
    clock,
    commitAuxTtlMs: COMMIT_AUX_TTL_MS,
    openStore: async () => {
      const peer = new RedisMessageStore({ redis: testClient(), namespace, clock, commitAuxTtlMs: COMMIT_AUX_TTL_MS });
      peers.push(peer);
      return peer;
    },
    corruptRecord: async (tenantId, conversationId, seq) => {
      await admin.set(recordKey(tenantId, conversationId, seq), Buffer.from('not a record'), 'KEEPTTL');
    },
    removeRecord: async (tenantId, conversationId, seq) => {
      await admin.del(recordKey(tenantId, conversationId, seq));
    },
    openCrashPair: async (point) => {
      const faults = {
        at: (p: string) => {
          if (p === point) throw new Error(`${MESSAGE_CRASH_TEXT} ${p}`);
        },
      };
      const dying = new RedisMessageStore({ redis: testClient(), namespace, clock, commitAuxTtlMs: COMMIT_AUX_TTL_MS, faults });
      const healthy = new RedisMessageStore({ redis: testClient(), namespace, clock, commitAuxTtlMs: COMMIT_AUX_TTL_MS });
      peers.push(dying, healthy);
      return { dying, healthy };
    },
    rewindSequence: async (tenantId, conversationId, highestIssued) => {
      const seqKey = store.keys.conversation(tenantId, conversationId).seq;
      if ((await admin.set(seqKey, highestIssued.toString(), 'XX')) !== 'OK') throw new Error(`no seq counter ${seqKey} to rewind`);
    },
    readCount: () => store.io.reads,
    close: async () => {
      await dropNamespace(admin, namespace);
      await admin.quit();
      await Promise.all([store, ...peers].map((s) => s.close()));
    },
  };
}
