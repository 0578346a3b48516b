// Unit specs of the benchmarks' pure parts (no server): part of the normal Jest pass.
// The benchmarks themselves run against real servers: tools/bench/run.sh (README).
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'bench',
  rootDir: __dirname,
  testMatch: ['<rootDir>/e2e/**/*.spec.ts', '<rootDir>/*.spec.ts'],
};
