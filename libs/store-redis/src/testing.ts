/**
 * Test seams of the Redis backend (`@qim/store-redis/testing`): the fault points of the mailbox store
 * and the error they throw, the socket-write counter of the specs and the commit benchmark, and its
 * kit for the soak and the benchmarks.
 */
export { SimulatedCrashError } from './mailbox/redis-mailbox-faults';
export type { MailboxFaults } from './mailbox/redis-mailbox-faults';
export { countSocketWrites } from './redis/socket-writes';
export { connectRawRedis, redisServers, redisTestKit } from './testing/redis-test-kit';
export type { RedisInspection, RedisKeyFacts, RedisKeySnapshot } from './testing/redis-test-kit';
