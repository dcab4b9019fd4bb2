#!/usr/bin/env node
// Runs `prisma generate` offline. The Prisma CLI tries to download its schema engine at start-up unless
// PRISMA_SCHEMA_ENGINE_BINARY names an existing file; generation itself never runs that binary, so any file will do.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) {
  const placeholder = path.join(os.tmpdir(), 'toolcoach-prisma-schema-engine-placeholder');
  if (!fs.existsSync(placeholder)) fs.writeFileSync(placeholder, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
  env.PRISMA_SCHEMA_ENGINE_BINARY = placeholder;
}
const cli = require.resolve('prisma/build/index.js');
const result = spawnSync(process.execPath, [cli, 'generate'], { stdio: 'inherit', env, cwd: path.join(__dirname, '..') });
process.exit(result.status ?? 1);
