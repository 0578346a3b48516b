module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'writer',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
