module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'store-redis',
  rootDir: __dirname,
};
