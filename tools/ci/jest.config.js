module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'ci-checks',
  rootDir: __dirname,
  // The lint probe runs the whole workspace ESLint config in a child process.
  setupFilesAfterEnv: ['<rootDir>/jest-timeout.ts'],
};
