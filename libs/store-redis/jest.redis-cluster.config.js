// The store-redis specs (and through them the store contract suite) once more, on the Redis Cluster
// of `tools/infra/infra up redis-cluster` (QIM_TEST_REDIS_CLUSTER_NODES): one more target, not a copy.
// Specs that start their own redis-server (restart, fsync, frozen server, Unix socket, socket-write
// counts of a standalone connection) are standalone-only; everything on the shared server runs here.
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'store-redis-cluster',
  rootDir: __dirname,
  setupFiles: ['<rootDir>/src/testing/cluster-target.setup.js'],
  testPathIgnorePatterns: [
    '/node_modules/',
    '/durability/redis-lost-writes\\.spec\\.ts$',
    '/durability/redis-restart\\.spec\\.ts$',
    '/redis/command-timeout\\.spec\\.ts$',
    '/redis/connect-redis\\.spec\\.ts$',
    '/redis/redis-io\\.spec\\.ts$',
    '/readiness/redis-readiness\\.spec\\.ts$',
    '/redis/replica-acks\\.spec\\.ts$',
    '/redis/replica-acks-private-cluster\\.spec\\.ts$',
    // The warm-user plain path is a standalone-client fast path; on a Cluster every entry goes through
    // the append script (redis-cluster.cluster-spec.ts shows it).
    '/mailbox/redis-plain-path\\.spec\\.ts$',
    // Group commit (ADR-0039) batches across hash tags, so it is a standalone-only path: on a Cluster
    // each commit-path call goes on its own (redis-io.ts); its spec counts a standalone client's commands.
    '/message/redis-group-commit\\.spec\\.ts$',
  ],
  testMatch: ['**/*.spec.ts', '**/*.cluster-spec.ts'],
  // Several nodes, more round trips per case than one local server, on a shared machine.
  testTimeout: 30_000,
};
