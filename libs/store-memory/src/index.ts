export { MemoryMessageStore } from './message/memory-message-store';
export type { MemoryMessageStoreOptions } from './message/memory-message-store';
export { MemoryMessageBackend } from './message/memory-message-backend';
export { MemoryMailboxStore } from './mailbox/memory-mailbox-store';
export type { MemoryMailboxStoreOptions } from './mailbox/memory-mailbox-store';
export type { MemoryMailboxFaults } from './mailbox/mailbox-page';
export { MemoryMailboxBackend } from './mailbox/memory-mailbox-backend';
export { MemoryMailboxInspector } from './mailbox/mailbox-inspection';
