module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'wire',
  rootDir: __dirname,
};
