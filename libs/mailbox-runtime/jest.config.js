module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'mailbox-runtime',
  rootDir: __dirname,
};
