import type { BackendModule, Clock, Coordination, MailboxBackend, MailboxBinding, MessageBackend } from '@qim/store-core';
import { StoreCache, systemClock } from '@qim/store-core';
import { MemoryMailboxBackend } from '../mailbox/memory-mailbox-backend';
import { MemoryMailboxStore } from '../mailbox/memory-mailbox-store';
import { MemoryMembership } from '../membership/memory-membership';
import { MemoryMessageStore } from '../message/memory-message-store';
import { memoryCoordinationReadiness, memoryStoreReadiness } from '../readiness/memory-readiness';
import { MemoryLeaseStore } from '../writer-coordination/memory-lease-store';
import { MemoryRecoveryClaims } from '../writer-coordination/memory-recovery-claims';

/** The Memory backend's settings: none (it is allowed only with `QIM_ENV=development|test`). */
export interface MemoryBackendConfig {
  readonly kind: 'memory';
}

/** Memory message backend (development/test only; the config refuses it elsewhere). */
export function memoryMessageBackend(clock: Clock = systemClock): MessageBackend {
  const store = new MemoryMessageStore({ clock });
  return { kind: 'memory', store, readiness: memoryStoreReadiness, close: () => store.close() };
}

/** Memory mailbox backend: one in-process store per shard over one shared storage. */
export function memoryMailboxBackend(binding: MailboxBinding, clock: Clock = systemClock): MailboxBackend {
  const shared = new MemoryMailboxBackend();
  const cache = new StoreCache(
    async (shard) => new MemoryMailboxStore({ shardEpoch: { shard, epoch: binding.epoch }, gc: binding.gc, clock, backend: shared }),
  );
  return { kind: 'memory', storeFor: (s) => cache.get(s), readiness: memoryStoreReadiness, close: () => cache.closeAll() };
}

/**
 * In-process coordination (memory mode, development/test only): membership, leases and claims live
 * and die with the process, one writer at a time.
 */
export function memoryCoordination(owner: string): Coordination {
  return {
    membership: new MemoryMembership(),
    leases: new MemoryLeaseStore(),
    claims: new MemoryRecoveryClaims(owner),
    readiness: memoryCoordinationReadiness,
    close: async () => {},
  };
}

/** The Memory backend: in-process tables, not durable, refused outside development/test. */
export const memoryBackendModule: BackendModule<MemoryBackendConfig> = {
  kind: 'memory',
  capabilities: { durable: false, coordination: true },
  envShape: {},
  resolve: (_raw, ctx) => {
    if (!ctx.development) {
      ctx.issue('QIM_STORE_BACKEND', `memory is allowed only with QIM_ENV=development|test (QIM_ENV=${ctx.env})`);
      return null;
    }
    return { kind: 'memory' };
  },
  openMessageBackend: async (_cfg, { step, clock }) => {
    step('store', { backend: 'memory' });
    return memoryMessageBackend(clock);
  },
  openMailboxBackend: async (_cfg, binding, { step, clock }) => {
    step('store', { backend: 'memory' });
    return memoryMailboxBackend(binding, clock);
  },
  openCoordination: async (_cfg, owner, step) => {
    step('coordination', { kind: 'memory' });
    return memoryCoordination(owner);
  },
};
