import type { BackendTestKit } from '@qim/store-core/testing';
import type { MemoryBackendConfig } from '../backend/memory-backend-module';
import { MemoryMailboxBackend } from '../mailbox/memory-mailbox-backend';
import { MemoryMailboxStore } from '../mailbox/memory-mailbox-store';
import { MemoryMessageBackend } from '../message/memory-message-backend';
import { MemoryMessageStore } from '../message/memory-message-store';

/** What the Memory kit lets a test see of its tables. */
export interface MemoryInspection {
  readonly kind: 'memory';
  /**
   * Rows held per table (Scylla table names; message and mailbox tables together), expired rows
   * the store has not swept yet included: the soak's storage census.
   */
  census(): Record<string, number>;
}

/** The Memory backend's test kit: the stores over one in-process storage per `open`, and its row counts. */
export const memoryTestKit: BackendTestKit<MemoryBackendConfig, MemoryInspection> = {
  kind: 'memory',
  open: async (_cfg, { clock, tuning = {} }) => {
    const messageTables = new MemoryMessageBackend();
    const mailboxTables = new MemoryMailboxBackend();
    const messages = new MemoryMessageStore({
      clock,
      backend: messageTables,
      ...(tuning.commitAuxTtlMs === undefined ? {} : { commitAuxTtlMs: tuning.commitAuxTtlMs }),
    });
    return {
      kind: 'memory',
      messages,
      mailboxStore: (shardEpoch, gc) =>
        new MemoryMailboxStore({
          shardEpoch,
          gc,
          clock,
          backend: mailboxTables,
          ...(tuning.releasedProofTtlMs === undefined ? {} : { releasedProofTtlMs: tuning.releasedProofTtlMs }),
        }),
      inspect: { kind: 'memory', census: () => ({ ...messageTables.census(), ...mailboxTables.census() }) },
      where: 'in-process maps',
      close: () => messages.close(),
    };
  },
};
