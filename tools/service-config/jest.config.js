module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'service-config',
  rootDir: __dirname,
};
