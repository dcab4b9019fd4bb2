// Scenario 7: the SDK's cost per tool call in the agent. The measurement is the SDK's own benchmark
// (bench/sdk-hook.bench.js, kept by the SDK); this builds the SDK, runs that script and reads its table. Its raw
// baseline is an empty hook (see below), measured the same way in this process.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { log, ROOT, scenarioResult } from '../lib/harness.mjs';

const SCRIPT = path.join(ROOT, 'bench', 'sdk-hook.bench.js');
const LINE = /^\s+(.+?)\s+p50\s+([\d.]+)\s+p99\s+([\d.]+)\s+max\s+([\d.]+)/;

/** What a call costs when the hook does nothing: timer overhead plus two function calls (the floor). */
function emptyHookP50Us() {
  const handler = { handleToolStart() {}, handleToolEnd() {} };
  const samples = new Float64Array(50_000);
  for (let i = 0; i < samples.length; i++) {
    const started = process.hrtime.bigint();
    handler.handleToolStart({}, '{"number":360}', `run-${i}`);
    handler.handleToolEnd('[2,2,2,3,3,5]', `run-${i}`);
    samples[i] = Number(process.hrtime.bigint() - started) / 1000;
  }
  samples.sort();
  return samples[samples.length / 2];
}

export default async function sdk() {
  if (!existsSync(SCRIPT)) {
    return scenarioResult({ notes: 'bench/sdk-hook.bench.js is not there yet (the SDK issue owns it)', targetMet: null });
  }
  execFileSync('npm', ['run', 'build', '--silent', '-w', 'sdk'], { cwd: ROOT, stdio: 'inherit' });
  let output;
  try {
    output = execFileSync(process.execPath, [SCRIPT], { cwd: ROOT, encoding: 'utf8' });
  } catch (error) {
    output = error.stdout ?? ''; // exits 1 when a case misses its target; the table is still printed
  }
  const cases = output
    .split('\n')
    .map((line) => LINE.exec(line))
    .filter(Boolean)
    .map(([, name, p50, p99, max]) => ({ name, p50Us: Number(p50), p99Us: Number(p99), maxUs: Number(max) }));
  if (cases.length === 0) throw new Error(`no results in the output of ${path.basename(SCRIPT)}:\n${output.slice(0, 1000)}`);
  const worst = cases.reduce((a, b) => (b.p50Us > a.p50Us ? b : a));
  const floorUs = emptyHookP50Us();
  log(`sdk: worst case ${worst.name} p50 ${worst.p50Us} µs (empty hook ${floorUs.toFixed(3)} µs)`);
  return scenarioResult({
    value: worst.p50Us,
    unit: 'µs p50 per tool call (worst case)',
    baseline: floorUs,
    p50Ms: worst.p50Us / 1000,
    p99Ms: worst.p99Us / 1000,
    targetMet: cases.every((c) => c.p50Us < 20),
    notes:
      cases.map((c) => `${c.name}: p50 ${c.p50Us} µs, p99 ${c.p99Us} µs`).join('; ') +
      `. Baseline: an empty hook's p50 (${floorUs.toFixed(3)} µs, the timer's floor); ratio = value / baseline is a cost multiple here, lower is better. Target: p50 < 20 µs.`,
    details: { cases, emptyHookP50Us: floorUs },
  });
}
