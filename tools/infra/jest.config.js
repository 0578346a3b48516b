// Smoke tests for the local infrastructure (tools/infra/smoke). They need the real servers:
//   tools/infra/infra up && eval "$(tools/infra/infra env)" && npx jest -c tools/infra/jest.config.js
// The clusters' smoke tests (smoke/cluster: redis-cluster, kafka3) need servers that the default
// `up` does not start; they run with jest.cluster.config.js.
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'infra',
  rootDir: __dirname,
  testMatch: ['<rootDir>/smoke/*.spec.ts'],
  // The three suites talk to three servers; running them one after another keeps the
  // 2-core machine responsive and the failure output readable.
  maxWorkers: 1,
};
