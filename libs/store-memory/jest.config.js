module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'store-memory',
  rootDir: __dirname,
};
