module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'writer-runtime',
  rootDir: __dirname,
};
