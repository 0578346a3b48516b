import type { Clock } from '@qim/store-core';
import { systemClock } from '@qim/store-core';
import { MemoryMailboxBackend, MemoryMailboxStore, MemoryMessageStore } from '@qim/store-memory';
import type { MailboxBackend, MailboxBinding, MessageBackend } from './backend-types';
import { StoreCache } from './store-cache';

const alwaysReady = { name: 'store', check: async () => ({ ok: true, detail: { backend: 'memory', durable: false } }) };

/** Memory message backend (development/test only; the config refuses it elsewhere). */
export function memoryMessageBackend(clock: Clock = systemClock): MessageBackend {
  const store = new MemoryMessageStore({ clock });
  return { kind: 'memory', store, readiness: alwaysReady, close: () => store.close() };
}

/** Memory mailbox backend: one in-process store per shard over one shared storage. */
export function memoryMailboxBackend(binding: MailboxBinding, clock: Clock = systemClock): MailboxBackend {
  const shared = new MemoryMailboxBackend();
  const cache = new StoreCache(async (shard) => new MemoryMailboxStore({ shardEpoch: { shard, epoch: binding.epoch }, gc: binding.gc, clock, backend: shared }));
  return { kind: 'memory', storeFor: (s) => cache.get(s), readiness: alwaysReady, close: () => cache.closeAll() };
}
