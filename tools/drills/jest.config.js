// Unit specs of the consistency checker (pure, no server): part of the normal Jest pass.
// The drills themselves start servers and run in their own pass: tools/drills/ci-short.sh.
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'drills',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
