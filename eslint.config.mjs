// Lint rules that catch what review keeps catching: `any`, unused names, promises nobody awaits. Formatting is
// Prettier's job (npm run format), so no stylistic rules here.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'src/generated/**',
      'coverage/**',
      'sdk/dist/**',
      'mcp-gateway/dist/**',
      'packages/core/dist/**',
      'sdk-python/**',
      'public/dashboard/assets/uPlot*',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: {
        // prisma.config.ts is read by the Prisma CLI only, so no tsconfig includes it
        projectService: { allowDefaultProject: ['prisma.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
    },
  },
  {
    // the SDK's tests are type-checked by sdk/tsconfig.spec.json (sdk/tsconfig.json builds only sdk/src)
    files: ['sdk/test/**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: false, project: './sdk/tsconfig.spec.json', tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    // the guard core's tests are type-checked by packages/core/tsconfig.spec.json, as the SDK's are
    files: ['packages/core/test/**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: false, project: './packages/core/tsconfig.spec.json', tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    // the gateway's tests are type-checked by mcp-gateway/tsconfig.spec.json, as the SDK's are
    files: ['mcp-gateway/test/**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: false, project: './mcp-gateway/tsconfig.spec.json', tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    // scripts, bench and test helpers in plain JavaScript run on Node: .js is CommonJS (package.json has no "type"),
    // .mjs is an ES module
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // the dashboard page is a classic browser script next to uPlot's IIFE build
    files: ['public/dashboard/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser, uPlot: 'readonly' } },
  },
);
