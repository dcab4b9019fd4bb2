'use strict';
// Bundles @toolcoach/core into the SDK's dist, so that @toolcoach/sdk installs with no other package of ours: core is
// compiled into sdk/dist/core and the SDK's compiled files require it by a relative path. Run by the SDK's build.
const { spawnSync } = require('node:child_process');
const { readdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const SDK_DIST = join(__dirname, '..', 'sdk', 'dist');
const CORE_TSCONFIG = join(__dirname, '..', 'packages', 'core', 'tsconfig.json');
const coreOut = join(SDK_DIST, 'core');

rmSync(coreOut, { recursive: true, force: true });
const tsc = require.resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', CORE_TSCONFIG, '--outDir', coreOut, '--sourceMap', 'false'], { stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

// the SDK's files sit at the top of dist (sdk/src has no folders), so './core' is right for each of them
const SPECIFIER = /(require\(|from |import\()(["'])@toolcoach\/core\2/g;
let rewritten = 0;
for (const name of readdirSync(SDK_DIST)) {
  if (!/\.(js|d\.ts)$/.test(name)) continue;
  const path = join(SDK_DIST, name);
  const text = readFileSync(path, 'utf8');
  const bundled = text.replace(SPECIFIER, (_match, head, quote) => `${head}${quote}./core${quote}`);
  if (bundled !== text) {
    writeFileSync(path, bundled);
    rewritten++;
  }
}
if (rewritten === 0) {
  console.error('bundle-core: no file of sdk/dist imports @toolcoach/core; is the SDK built?');
  process.exit(1);
}
