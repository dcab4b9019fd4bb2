#!/usr/bin/env node
// The build step of `npm start`, `npm test` and `npm run lint`: compiles each part (the guard core, the server, the
// SDK with the core bundled in, the MCP gateway) only when one of its source files, its compiler settings or
// TypeScript's version changed since its last successful compile, so a second build of the same tree (CI builds, then
// lints, then tests) takes no tsc run. `node scripts/compile-if-changed.js server` builds the core and the server
// only (what `npm start` needs); with no argument, every part. Parts that do not need each other compile at once (each
// tsc uses one core): the server beside the SDK and then the gateway.
const { spawn } = require('node:child_process');
const { ROOT, filesUnder, hashInputs, isUpToDate, writeStamp } = require('./inputs-stamp');

const TYPESCRIPT = 'node_modules/typescript/package.json';
const isSource = (file) => file.endsWith('.ts') && !file.endsWith('.spec.ts');
const tsc = (project, ...extra) => [process.execPath, require.resolve('typescript/bin/tsc'), '-p', project, ...extra];

/** Each part: what it reads, what it writes, the commands that build it (in order), and the parts it is built after. */
const PARTS = {
  core: {
    inputs: () => ['packages/core/tsconfig.json', ...filesUnder('packages/core/src', isSource)],
    outputs: ['packages/core/dist/index.js'],
    stamp: 'packages/core/dist/.inputs-sha256',
    commands: [tsc('packages/core/tsconfig.json')],
    after: [],
  },
  server: {
    // tsconfig.build.json compiles src/**/*.ts without the unit specs
    // the fallback model's weights are imported JSON, compiled into dist like a source file
    inputs: () => [
      'tsconfig.json',
      'tsconfig.build.json',
      ...filesUnder('src', (file) => isSource(file) || /\/weights\.v\d+\.json$/.test(file)),
    ],
    outputs: ['dist/src/main.js', 'dist/src/cli.js'],
    stamp: 'dist/.inputs-sha256',
    commands: [tsc('tsconfig.build.json')],
    after: ['core'],
  },
  sdk: {
    inputs: () => ['sdk/tsconfig.json', 'sdk/package.json', 'scripts/bundle-core.js', ...filesUnder('sdk/src', isSource)],
    outputs: ['sdk/dist/index.js', 'sdk/dist/core/index.js'],
    stamp: 'sdk/dist/.inputs-sha256',
    commands: [['npm', 'run', 'build', '--workspace=sdk', '--silent']],
    after: ['core'],
  },
  gateway: {
    // the gateway is compiled against the SDK's types, so a change to the SDK rebuilds it too
    inputs: () => ['mcp-gateway/tsconfig.json', ...filesUnder('mcp-gateway/src', isSource), ...filesUnder('sdk/src', isSource)],
    outputs: ['mcp-gateway/dist/index.js'],
    stamp: 'mcp-gateway/dist/.inputs-sha256',
    commands: [tsc('mcp-gateway/tsconfig.json')],
    after: ['core', 'sdk'],
  },
};
// the core is compiled into every part that imports it, so a change to it rebuilds them all
const DEPENDS_ON_CORE = ['server', 'sdk', 'gateway'];
const TARGETS = { server: ['core', 'server'], all: ['core', 'server', 'sdk', 'gateway'] };

const target = process.argv[2] ?? 'all';
if (!TARGETS[target]) {
  console.error(`usage: compile-if-changed.js [${Object.keys(TARGETS).join('|')}]`);
  process.exit(2);
}
const coreInputs = PARTS.core.inputs();
const run = ([command, ...args]) =>
  new Promise((resolve) => spawn(command, args, { stdio: 'inherit', cwd: ROOT }).on('close', (code) => resolve(code ?? 1)));

/** Compiles `name` unless it is up to date, once the parts it is built after are done; rejects with the exit code. */
async function build(name) {
  const part = PARTS[name];
  await Promise.all(part.after.filter((other) => TARGETS[target].includes(other)).map(built));
  const inputs = [TYPESCRIPT, ...part.inputs(), ...(DEPENDS_ON_CORE.includes(name) ? coreInputs : [])];
  const hash = hashInputs(inputs);
  if (isUpToDate(part.stamp, hash, part.outputs)) {
    console.log(`${name} is up to date (${inputs.length} inputs); not compiling.`);
    return;
  }
  for (const command of part.commands) {
    const code = await run(command);
    if (code !== 0) throw code;
  }
  writeStamp(part.stamp, hash);
}
const builds = new Map();
const built = (name) => {
  if (!builds.has(name)) builds.set(name, build(name));
  return builds.get(name);
};
Promise.all(TARGETS[target].map(built)).catch((code) => process.exit(typeof code === 'number' ? code : 1));
