module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'store-scylla',
  rootDir: __dirname,
};
