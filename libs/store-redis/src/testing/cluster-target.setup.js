// Jest setup of the cluster target (jest.redis-cluster.config.js): every spec's shared-server client
// becomes a Cluster client. No cluster in the environment → every spec file fails, none is skipped.
if (!process.env.QIM_TEST_REDIS_CLUSTER_NODES) {
  throw new Error(
    'QIM_TEST_REDIS_CLUSTER_NODES is not set: run `tools/infra/infra up redis-cluster` and `eval "$(tools/infra/infra env)"` (the cluster target never skips)',
  );
}
process.env.QIM_TEST_REDIS_TARGET = 'cluster';
