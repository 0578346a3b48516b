module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'mailbox',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
