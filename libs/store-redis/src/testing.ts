/**
 * Test seams of the Redis backend (`@qim/store-redis/testing`): the fault points of the mailbox store
 * and the error they throw, and the socket-write counter of the specs and the commit benchmark.
 */
export { SimulatedCrashError } from './mailbox/mailbox-faults';
export type { MailboxFaults } from './mailbox/mailbox-faults';
export { countSocketWrites } from './redis/socket-writes';
