module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'service-kit',
  rootDir: __dirname,
};
