/**
 * Test seams of the Memory backend (`@qim/store-memory/testing`), never imported by production code:
 * its kit for the soak and the benchmarks, the crash points of `applyPage` and the inspector that
 * reads and damages stored mailbox facts.
 */
export { memoryTestKit } from './testing/memory-test-kit';
export type { MemoryInspection } from './testing/memory-test-kit';
export type { MemoryMailboxFaults } from './mailbox/memory-mailbox-faults';
export { MemoryMailboxInspector } from './mailbox/mailbox-inspection';
