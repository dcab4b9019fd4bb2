#!/usr/bin/env node
// Runs `prisma generate` offline, and only when the schema, the Prisma config or Prisma's version changed since the
// last generation (`--force` generates anyway). The Prisma CLI tries to download its schema engine at start-up unless
// PRISMA_SCHEMA_ENGINE_BINARY names an existing file; generation itself never runs that binary, so any file will do.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ROOT, hashInputs, isUpToDate, writeStamp } = require('./inputs-stamp');

const INPUTS = ['prisma/schema.prisma', 'prisma.config.ts', 'node_modules/prisma/package.json', 'node_modules/@prisma/client/package.json'];
const OUTPUTS = ['src/generated/prisma/client.ts'];
const STAMP = 'src/generated/prisma/.inputs-sha256';

const inputsHash = hashInputs(INPUTS);
if (!process.argv.includes('--force') && isUpToDate(STAMP, inputsHash, OUTPUTS)) {
  console.log('Prisma client is up to date with prisma/schema.prisma; not generating.');
  process.exit(0);
}

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) {
  const placeholder = path.join(os.tmpdir(), 'toolcoach-prisma-schema-engine-placeholder');
  if (!fs.existsSync(placeholder)) fs.writeFileSync(placeholder, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
  env.PRISMA_SCHEMA_ENGINE_BINARY = placeholder;
}
const cli = require.resolve('prisma/build/index.js');
const result = spawnSync(process.execPath, [cli, 'generate'], { stdio: 'inherit', env, cwd: ROOT });
if (result.status === 0) writeStamp(STAMP, inputsHash);
process.exit(result.status ?? 1);
