/**
 * Test seams of the Memory backend (`@qim/store-memory/testing`): the crash points of `applyPage` and
 * the inspector that reads and damages stored mailbox facts — never imported by production code.
 */
export type { MemoryMailboxFaults } from './mailbox/mailbox-page';
export { MemoryMailboxInspector } from './mailbox/mailbox-inspection';
