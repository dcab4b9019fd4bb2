#!/usr/bin/env node
// The `toolcoach-mcp` command. It is a file of the source tree, not of dist/: npm links a workspace's bin into
// node_modules/.bin only when its file exists at install, so `npm ci` in a checkout (before anything is compiled) links
// this one, and `npx toolcoach-mcp` finds it instead of asking the npm registry. `npm start` compiles dist/.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const cli = join(__dirname, '..', 'dist', 'cli.js');
if (!existsSync(cli)) {
  process.stderr.write('toolcoach-mcp: not compiled yet; in the toolcoach checkout, `npm start` (or `npm run pretest`) compiles it\n');
  process.exit(1);
}
require(cli);
