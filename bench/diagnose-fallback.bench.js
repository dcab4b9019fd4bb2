// The categorizer's cost with the learned fallback model against rules only, on the same inputs in the same run: every
// categorizer fixture (the hand corpus and the generated parts, schemas compiled once as the worker's cache does), and
// the subset the rules leave unknown (the only calls the model runs on). Rounds alternate the two and count this process's CPU
// time, so load on a shared machine falls on both and moves neither much. Run after `npm run build`: node bench/diagnose-fallback.bench.js. Target: all fixtures at a
// ratio of at least 0.95 (docs/categorization.md).
'use strict';
const { readFileSync, readdirSync } = require('node:fs');
const { join } = require('node:path');

if (process.argv.slice(2).some((arg) => arg === '--help' || arg === '-h')) {
  console.log(`usage: node bench/diagnose-fallback.bench.js     (after npm run build; docs/categorization.md)
diagnose() calls per second with the fallback model and rules only, on the same fixtures, and their ratio
environment:
  BENCH_ROUNDS   rounds per variant (default 10)`);
  process.exit(0);
}
const ROOT = join(__dirname, '..');
const { compileArgumentSchema, diagnose } = require(join(ROOT, 'dist/src/diagnosis'));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const FIXTURES = join(ROOT, 'test/fixtures/categorizer');

const readLines = (path) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
const parts = readdirSync(join(FIXTURES, 'parts'))
  .filter((name) => /^(?:heldout-)?(?:gen-.+|frameworks)\.jsonl$/.test(name))
  .sort();
const fixtures = [readLines(join(FIXTURES, 'corpus.jsonl')), ...parts.map((name) => readLines(join(FIXTURES, 'parts', name)))].flat();
const inputs = fixtures.map((fixture) => ({
  tool: fixture.tool,
  arguments: fixture.arguments,
  error: fixture.error,
  schema: fixture.schema ? compileArgumentSchema(fixture.schema) : null,
}));
const unexplained = inputs.filter((input) => diagnose(input, null).category === 'unknown');

/** CPU microseconds (user + system) of this process to diagnose every input of `list` `passes` times. */
function cpuMicros(list, model, passes) {
  const before = process.cpuUsage();
  for (let pass = 0; pass < passes; pass++) for (const input of list) diagnose(input, model);
  const used = process.cpuUsage(before);
  return used.user + used.system;
}

/**
 * Rounds alternate which variant goes first; the CPU time this process used (not wall time, which other load on a
 * shared machine moves far more) is summed per variant, and calls per second are calls over that time.
 */
function compare(title, list) {
  // enough passes per round for about 4,000 calls, so a round of a short list is not all timer resolution
  const passes = Math.max(1, Math.ceil(4000 / list.length));
  cpuMicros(list, undefined, passes);
  cpuMicros(list, null, passes);
  let withModelMicros = 0;
  let rulesOnlyMicros = 0;
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) withModelMicros += cpuMicros(list, undefined, passes);
    rulesOnlyMicros += cpuMicros(list, null, passes);
    if (round % 2 === 1) withModelMicros += cpuMicros(list, undefined, passes);
  }
  const calls = ROUNDS * passes * list.length;
  const rate = (micros) => Math.round(calls / (micros / 1e6)).toLocaleString('en-US');
  const ratio = rulesOnlyMicros / withModelMicros;
  console.log(
    `${title.padEnd(34)} ${String(list.length).padStart(5)} inputs   with model ${rate(withModelMicros).padStart(9)}/s` +
      `   rules only ${rate(rulesOnlyMicros).padStart(9)}/s   ratio ${ratio.toFixed(3)}`,
  );
  return ratio;
}

const ratio = compare('all categorizer fixtures', inputs);
compare('only what the rules leave unknown', unexplained);
console.log(ratio >= 0.95 ? 'PASS: all fixtures at ratio >= 0.95' : 'FAIL: all fixtures below ratio 0.95');
process.exitCode = ratio >= 0.95 ? 0 : 1;
