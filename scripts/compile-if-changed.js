#!/usr/bin/env node
// `npm start`'s build step: compiles the guard core (packages/core, which the server imports as @toolcoach/core) and
// the server (tsconfig.build.json) only when a source file, the compiler settings or TypeScript's version changed since
// the last successful compile, so a start with nothing changed takes no tsc run.
const { spawnSync } = require('node:child_process');
const { ROOT, filesUnder, hashInputs, isUpToDate, writeStamp } = require('./inputs-stamp');

const SETTINGS = ['tsconfig.json', 'tsconfig.build.json', 'packages/core/tsconfig.json', 'node_modules/typescript/package.json'];
const OUTPUTS = ['dist/src/main.js', 'dist/src/cli.js', 'packages/core/dist/index.js'];
const PROJECTS = ['packages/core/tsconfig.json', 'tsconfig.build.json'];
const STAMP = 'dist/.inputs-sha256';

// tsconfig.build.json compiles src/**/*.ts without the unit specs
const isSource = (file) => file.endsWith('.ts') && !file.endsWith('.spec.ts');
const sources = [...filesUnder('packages/core/src', isSource), ...filesUnder('src', isSource)];
const inputsHash = hashInputs([...SETTINGS, ...sources]);
if (isUpToDate(STAMP, inputsHash, OUTPUTS)) {
  console.log(`dist/ is up to date with src/ (${sources.length} files); not compiling.`);
  process.exit(0);
}
const tsc = require.resolve('typescript/bin/tsc');
for (const project of PROJECTS) {
  const result = spawnSync(process.execPath, [tsc, '-p', project], { stdio: 'inherit', cwd: ROOT });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
writeStamp(STAMP, inputsHash);
