// Unit tests live next to the code (*.spec.ts); integration and end-to-end tests boot real Postgres and Redis.
// Packages that ship ES modules only: Node 20.19+ require()s them natively, Jest needs them turned into CommonJS.
// The CommonJS builds (.cjs) of Mastra and of LlamaIndex's agent workflows require ES-module-only dependencies (nested
// under @llamaindex/workflow, whose path must match too), Mastra's some by a native `import()` Jest cannot run.
const FRAMEWORK_ESM_DEPENDENCIES = [
  '@llamaindex/workflow',
  '@llamaindex/workflow-core',
  '@mastra/core',
  '@ai-sdk/provider-utils-v7',
  '@ai-sdk/provider-v7',
  '@ai-sdk/provider',
  'p-map',
  'p-retry',
  'execa',
  'chat',
  '@workflow/serde',
  'is-network-error',
];
const ESM_ONLY_PACKAGES = ['@nestjs', 'content-disposition', ...FRAMEWORK_ESM_DEPENDENCIES].join('|');
const esmToCommonJs = { [`/node_modules/(${ESM_ONLY_PACKAGES})/.+\\.c?js$`]: '<rootDir>/test/support/esm-to-cjs.transformer.js' };
const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.jest.json', diagnostics: { ignoreCodes: [151002, 1272] } }],
  ...esmToCommonJs,
};
const transformIgnorePatterns = [`/node_modules/(?!(${ESM_ONLY_PACKAGES})/)`];
// The guard core is a workspace package: its tests and every importer's run its source, never a stale build.
const coreSource = { '^@toolcoach/core$': '<rootDir>/packages/core/src/index.ts' };
// The generated Prisma client imports its TypeScript siblings with a .js suffix, as Node's ESM resolution wants.
const moduleNameMapper = { ...coreSource, '^(\\.{1,2}/.*)\\.js$': '$1' };
module.exports = {
  testTimeout: 30000,
  // `npm test -- --coverage` measures src/ (the server) and packages/core/src (the guard core the server runs); the SDK
  // and the gateway are packages of their own
  collectCoverageFrom: ['src/**/*.ts', '!src/**/*.spec.ts', '!src/generated/**', 'packages/core/src/**/*.ts'],
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
      setupFiles: ['<rootDir>/test/support/startup-timeout-env.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      // The guard core (packages/core) is a package of its own, pure: its tests need nothing else.
      displayName: 'core',
      testEnvironment: 'node',
      transform: {
        '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/packages/core/tsconfig.jest.json', diagnostics: { ignoreCodes: [151002] } }],
      },
      testMatch: ['<rootDir>/packages/core/test/**/*.spec.ts'],
    },
    {
      // The SDK is its own package: its tests compile with its own settings and need no database.
      displayName: 'sdk',
      testEnvironment: 'node',
      transform: {
        '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/sdk/tsconfig.jest.json', diagnostics: { ignoreCodes: [151002] } }],
        ...esmToCommonJs,
      },
      transformIgnorePatterns,
      moduleNameMapper: coreSource,
      testMatch: ['<rootDir>/sdk/test/**/*.spec.ts'],
    },
    {
      // The MCP gateway is its own package too; its end-to-end test (real servers) is test/e2e/mcp-gateway.e2e-spec.ts.
      displayName: 'mcp-gateway',
      testEnvironment: 'node',
      transform: {
        '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/mcp-gateway/tsconfig.jest.json', diagnostics: { ignoreCodes: [151002] } }],
      },
      moduleNameMapper: coreSource,
      testMatch: ['<rootDir>/mcp-gateway/test/**/*.spec.ts'],
    },
  ],
};
