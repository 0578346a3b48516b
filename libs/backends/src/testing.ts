/**
 * Test seams of `@qim/backends` (`@qim/backends/testing`): the one place the soak and the benchmarks
 * open stores — each backend's test kit, listed beside the registry — and the settings of a backend
 * from the services' variables. Never imported by production code.
 */
export { BACKEND_TEST_KITS, backendConfigFromEnv, openTestStores } from './testing/test-stores';
export type { ConfigOfKind, InspectionOf, StoreInspection } from './testing/test-stores';
export type { TestOpenOptions, TestStoreTuning, TestStores } from '@qim/store-core/testing';
export type { MemoryInspection } from '@qim/store-memory/testing';
export { connectRawRedis, redisServers } from '@qim/store-redis/testing';
export type { RedisInspection, RedisKeyFacts, RedisKeySnapshot } from '@qim/store-redis/testing';
export { scyllaTestBackendConfig } from '@qim/store-scylla/testing';
export type { ScyllaInspection } from '@qim/store-scylla/testing';
