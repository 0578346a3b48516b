module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'service-stack',
  rootDir: __dirname,
};
