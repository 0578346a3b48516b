module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'backends',
  rootDir: __dirname,
};
