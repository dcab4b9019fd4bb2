#!/usr/bin/env node
// `node scripts/train-diagnosis-model.js [--check]` (after `npm run build`): trains the diagnosis fallback model on the
// tuning parts of test/fixtures/categorizer/parts and writes src/diagnosis/fallback/weights.v1.json; with --check,
// only says whether the committed file is what training produces (exit 1 when not). Deterministic: the same fixtures
// give the same bytes (docs/categorization.md).
const { readFileSync, readdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const PARTS_DIR = join(ROOT, 'test/fixtures/categorizer/parts');
const WEIGHTS = join(ROOT, 'src/diagnosis/fallback/weights.v1.json');
const { isTuningPart, parseFixtureLines, serializeWeights, trainFallbackModels } = require(
  join(ROOT, 'dist/src/diagnosis/fallback/training.js'),
);

const started = Date.now();
const fixtures = readdirSync(PARTS_DIR)
  .filter(isTuningPart)
  .sort()
  .flatMap((name) => parseFixtureLines(readFileSync(join(PARTS_DIR, name), 'utf8')));
const text = serializeWeights(trainFallbackModels(fixtures).weights);
const seconds = ((Date.now() - started) / 1000).toFixed(1);
if (process.argv.includes('--check')) {
  const isSame = readFileSync(WEIGHTS, 'utf8') === text;
  console.log(`${isSame ? 'same' : 'DIFFERENT'}: ${WEIGHTS} (${fixtures.length} fixtures, ${seconds} s)`);
  process.exit(isSame ? 0 : 1);
}
writeFileSync(WEIGHTS, text);
console.log(`wrote ${WEIGHTS}: ${text.length} bytes from ${fixtures.length} fixtures in ${seconds} s`);
