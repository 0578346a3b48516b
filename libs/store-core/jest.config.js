module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'store-core',
  rootDir: __dirname,
  collectCoverageFrom: ['src/**/*.ts', '!src/**/*.spec.ts', '!src/testing/**', '!src/index.ts'],
  coverageThreshold: { global: { lines: 90 } },
};
