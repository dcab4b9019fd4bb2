// Unit tests live next to the code (*.spec.ts); integration and end-to-end tests boot real Postgres and Redis.
const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: { ignoreCodes: [151002] } }],
  '/node_modules/@nestjs/.+\\.js$': '<rootDir>/test/support/esm-to-cjs.transformer.js',
};
const transformIgnorePatterns = ['/node_modules/(?!@nestjs/)'];
// The generated Prisma client imports its TypeScript siblings with a .js suffix, as Node's ESM resolution wants.
const moduleNameMapper = { '^(\\.{1,2}/.*)\\.js$': '$1' };
module.exports = {
  testTimeout: 30000,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
      testMatch: ['<rootDir>/src/**/*.spec.ts'],
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
      testMatch: ['<rootDir>/test/**/*.int-spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
    },
  ],
};
