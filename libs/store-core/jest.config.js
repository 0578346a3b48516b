module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'store-core',
  rootDir: __dirname,
};
