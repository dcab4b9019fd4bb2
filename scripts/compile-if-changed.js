#!/usr/bin/env node
// `npm start`'s build step: compiles the server (tsconfig.build.json) only when a source file, the compiler settings
// or TypeScript's version changed since the last successful compile, so a start with nothing changed takes no tsc run.
const { spawnSync } = require('node:child_process');
const { ROOT, filesUnder, hashInputs, isUpToDate, writeStamp } = require('./inputs-stamp');

const SETTINGS = ['tsconfig.json', 'tsconfig.build.json', 'node_modules/typescript/package.json'];
const OUTPUTS = ['dist/src/main.js', 'dist/src/cli.js'];
const STAMP = 'dist/.inputs-sha256';

// tsconfig.build.json compiles src/**/*.ts without the unit specs
const sources = filesUnder('src', (file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'));
const inputsHash = hashInputs([...SETTINGS, ...sources]);
if (isUpToDate(STAMP, inputsHash, OUTPUTS)) {
  console.log(`dist/ is up to date with src/ (${sources.length} files); not compiling.`);
  process.exit(0);
}
const tsc = require.resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit', cwd: ROOT });
if (result.status === 0) writeStamp(STAMP, inputsHash);
process.exit(result.status ?? 1);
