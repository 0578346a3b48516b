module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'store-contract',
  rootDir: __dirname,
};
