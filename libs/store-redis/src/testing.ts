/** Test seams of the Redis backend (`@qim/store-redis/testing`): the error its fault points throw. */
export { SimulatedCrashError } from './mailbox/redis-mailbox-faults';
export { connectRawRedis, redisServers, redisTestKit } from './testing/redis-test-kit';
export type { RedisInspection, RedisKeyFacts, RedisKeySnapshot } from './testing/redis-test-kit';
