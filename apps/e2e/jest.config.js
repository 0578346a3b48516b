const preset = require('../../jest.preset.js');

/**
 * End-to-end specs: the built services (esbuild bundles) as child processes over real Redis and
 * Kafka. They need QIM_REDIS_URL and QIM_KAFKA_BROKERS (`eval "$(tools/infra/infra env)"`) and FAIL
 * without them. Serial: they start processes and share the brokers. The global setup runs the
 * apps' `build` targets once (Nx cache), and the specs start those bundles.
 */
module.exports = {
  ...preset,
  displayName: 'e2e',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.e2e.spec.ts'],
  globalSetup: '<rootDir>/jest.global-setup.ts',
  setupFilesAfterEnv: ['<rootDir>/src/support/jest-timeout.ts'],
  testTimeout: 180_000,
  maxWorkers: 1,
};
