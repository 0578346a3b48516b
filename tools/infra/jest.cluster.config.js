// Smoke tests for the clusters that are not part of the default `infra up`:
//   tools/infra/infra up redis-cluster kafka3 && eval "$(tools/infra/infra env)"
//   npx jest -c tools/infra/jest.cluster.config.js          (or: npx nx run infra:smoke-cluster)
// Each suite kill -9s one node and starts it again through tools/infra/infra, so it must run from
// the checkout (and QIM_INFRA_STATE_DIR) that started the cluster.
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'infra-cluster',
  rootDir: __dirname,
  testMatch: ['<rootDir>/smoke/cluster/*.spec.ts'],
  // Killing and restarting nodes of two clusters at once would make each suite's bounds meaningless.
  maxWorkers: 1,
};
