import { ManualClock } from '@qim/store-core/testing';
import { MESSAGE_CRASH_TEXT } from '@qim/store-contract/testing';
import type { MailboxHarnessFactory, MessageHarnessFactory } from '@qim/store-contract/testing';
import { MemoryMailboxInspector } from '../mailbox/mailbox-inspection';
import { MemoryMailboxBackend } from '../mailbox/memory-mailbox-backend';
import { MemoryMailboxStore } from '../mailbox/memory-mailbox-store';
import { MemoryMessageBackend } from '../message/memory-message-backend';
import { COMMIT_AUX_TTL_MS } from '@qim/store-core';
import { MemoryMessageStore } from '../message/memory-message-store';

/** 2026-03-14T12:00:00Z: the manual clock's start (mid-day, so "yesterday" and "today" buckets both exist). */
export const MEMORY_CLOCK_START = 1_773_489_600_000n;

/** A fresh Memory MessageStore with a manual clock, its counted reads and its fault hooks. */
export const memoryMessageHarness: MessageHarnessFactory = async () => {
  const clock = new ManualClock(MEMORY_CLOCK_START);
  const backend = new MemoryMessageBackend();
  const store = new MemoryMessageStore({ clock, backend });
  const startReads = backend.reads;
  const peers: MemoryMessageStore[] = [];
  return {
    store,
    clock,
    commitAuxTtlMs: COMMIT_AUX_TTL_MS,
    openStore: async () => {
      const peer = new MemoryMessageStore({ clock, backend });
      peers.push(peer);
      return peer;
    },
    corruptRecord: async (t, c, seq) => {
      if (!backend.corruptRecord(t, c, seq)) throw new Error(`no record ${t}/${c}/${seq} to corrupt`);
    },
    removeRecord: async (t, c, seq) => {
      if (!backend.removeRecord(t, c, seq)) throw new Error(`no record ${t}/${c}/${seq} to remove`);
    },
    openCrashPair: async (point) => {
      const dying = new MemoryMessageStore({
        clock,
        backend,
        faults: {
          at: (p) => {
            if (p === point) throw new Error(`${MESSAGE_CRASH_TEXT} ${p}`);
          },
        },
      });
      const healthy = new MemoryMessageStore({ clock, backend });
      peers.push(dying, healthy);
      return { dying, healthy };
    },
    rewindSequence: async (t, c, highestIssued) => {
      if (!backend.rewindSequence(t, c, highestIssued)) throw new Error(`no seq of ${t}/${c} to rewind`);
    },
    readCount: () => backend.reads - startReads,
    close: async () => {
      await Promise.all([store, ...peers].map((s) => s.close()));
    },
  };
};

/** A fresh Memory mailbox backend shared by every store the harness opens, with a manual clock. */
export const memoryMailboxHarness: MailboxHarnessFactory = async () => {
  const clock = new ManualClock(MEMORY_CLOCK_START);
  const backend = new MemoryMailboxBackend();
  const inspect = new MemoryMailboxInspector(backend);
  const stores: MemoryMailboxStore[] = [];
  return {
    clock,
    open: async (shardEpoch, gc, faults, clockLagMs = 0n) => {
      const storeClock = clockLagMs === 0n ? clock : { nowMs: () => clock.nowMs() - clockLagMs };
      const store = new MemoryMailboxStore({ shardEpoch, gc, clock: storeClock, backend, faults });
      stores.push(store);
      return store;
    },
    removeBucketProof: async (t, u, epoch, day) => {
      if (!inspect.removeBucketProof(t, u, epoch, day)) throw new Error(`no bucket proof ${t}/${u}/${epoch}/${day} to remove`);
    },
    readTrim: async (t, u) => inspect.readTrim(t, u, clock.nowMs()),
    damageRetentionMeta: async (t, u, damage) => {
      if (!inspect.damageRetentionMeta(t, u, damage, clock.nowMs())) throw new Error(`no retention meta ${t}/${u} to damage`);
    },
    corruptEntry: async (t, u, seq) => {
      if (!inspect.corruptEntry(t, u, seq)) throw new Error(`no entry ${t}/${u}/${seq} to corrupt`);
    },
    dispatchIndexed: async (shardEpoch, dispatchId) => inspect.dispatchIndexed(shardEpoch, dispatchId, clock.nowMs()),
    close: async () => {
      await Promise.all(stores.map((s) => s.close()));
    },
  };
};
