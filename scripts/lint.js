'use strict';
// npm run lint: ESLint, Prettier and the type checks at once (each waits mostly on its own CPU, and CI's box has two
// cores), each one's output printed whole when all are done, in a fixed order; fails when any of them fails.
const { spawn } = require('node:child_process');

const CHECKS = ['lint:code', 'lint:format', 'lint:types'];

const run = (script) =>
  new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('close', (code) => resolve({ script, code, output: Buffer.concat(output).toString() }));
  });

Promise.all(CHECKS.map(run)).then((results) => {
  for (const { script, code, output } of results) {
    console.log(`> ${script}: ${code === 0 ? 'ok' : `failed (exit ${code})`}`);
    if (output.trim()) console.log(output.trimEnd());
  }
  process.exit(results.every(({ code }) => code === 0) ? 0 : 1);
});
