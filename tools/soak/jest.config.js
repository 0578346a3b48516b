// Unit specs of the soak's checker (pure, no server): part of the normal Jest pass.
// The soak itself runs real backends for simulated days: tools/soak/run (see README.md).
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'soak',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
