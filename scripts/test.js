'use strict';
// npm test: Jest in two lanes. The tests that time the process under attack (/healthz and answer bounds) run one file
// at a time after the rest, so that no other test file's load is what they measure on a 2-core machine; everything
// else runs in parallel first. Arguments pass through to both runs; `--json --outputFile=<file>` (what CI passes) gets
// one report whose counts are the sum of both lanes. A path or pattern given on the command line runs one plain Jest.
const { spawnSync } = require('node:child_process');
const { readFileSync, writeFileSync } = require('node:fs');

const SERIAL_FILES = [
  'test/e2e/hostile-schemas.e2e-spec.ts',
  'test/e2e/bounded-validate.e2e-spec.ts',
  'test/e2e/bounded-registration.e2e-spec.ts',
  'test/e2e/fairness.e2e-spec.ts',
];

const args = process.argv.slice(2);
const jest = require.resolve('jest/bin/jest');
const run = (laneArgs) => spawnSync(process.execPath, [jest, ...laneArgs], { stdio: 'inherit' }).status ?? 1;

/** Returns once the process `pid` has ended (polled every 200 ms); at once when pid is not a number. */
function waitForProcessEnd(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return;
  const started = Date.now();
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      break;
    }
    Atomics.wait(pause, 0, 0, 200);
  }
  const waitedS = Math.round((Date.now() - started) / 1000);
  if (waitedS > 0) console.log(`serial lane: waited ${waitedS} s for process ${pid} (lint) to end`);
}

const selectsFiles = args.some((arg) => !arg.startsWith('-') && !/^--/.test(arg));
if (selectsFiles || args.some((arg) => arg.startsWith('--selectProjects'))) process.exit(run(args));

const outputArg = args.find((arg) => arg.startsWith('--outputFile='));
const outputFile = outputArg?.slice('--outputFile='.length);
// `--coverage`: each lane writes its own coverage-final.json, merged below into line counts for src/ and the core
const withCoverage = args.includes('--coverage');
const withOutput = (suffix) => [
  ...(outputFile ? args.map((arg) => (arg === outputArg ? `--outputFile=${outputFile}.${suffix}` : arg)) : args),
  ...(withCoverage ? [`--coverageDirectory=coverage/${suffix}`, '--coverageReporters=json'] : []),
];
const serialPattern = SERIAL_FILES.map((file) => file.replace(/[.]/g, '\\.')).join('|');

// Jest's default on a 2-core machine is one worker, i.e. every file in band; the end-to-end files mostly wait on
// Postgres, Redis and child processes, so three workers overlap those waits (measured on 2 cores: the lane took 447 s
// with two, 401 s with three; four was slower). TOOLCOACH_TEST_WORKERS overrides.
const workers = process.env.TOOLCOACH_TEST_WORKERS ?? '3';
const parallel = run([...withOutput('parallel'), `--maxWorkers=${workers}`, '--testPathIgnorePatterns', serialPattern]);
// CI runs lint beside the parallel lane (.ci/run) and names its process here: the serial lane, which times the process,
// waits for it to end so that nothing else runs beside it
waitForProcessEnd(Number(process.env.TOOLCOACH_SERIAL_LANE_AFTER_PID));
const serial = run([...withOutput('serial'), '--runInBand', ...SERIAL_FILES]);

if (outputFile) {
  const reports = ['parallel', 'serial'].map((suffix) => {
    try {
      return JSON.parse(readFileSync(`${outputFile}.${suffix}`, 'utf8'));
    } catch {
      return null;
    }
  });
  const merged = { ...(reports[0] ?? reports[1] ?? {}), testResults: [] };
  for (const key of [
    'numPassedTests',
    'numFailedTests',
    'numPendingTests',
    'numTodoTests',
    'numTotalTests',
    'numPassedTestSuites',
    'numFailedTestSuites',
    'numTotalTestSuites',
  ]) {
    merged[key] = reports.reduce((sum, report) => sum + (report?.[key] ?? 0), 0);
  }
  // a lane that left no report failed before Jest could count: say so in the counts
  if (reports.some((report) => report === null)) merged.numFailedTests += 1;
  merged.testResults = reports.flatMap((report) => report?.testResults ?? []);
  merged.success = parallel === 0 && serial === 0;
  writeFileSync(outputFile, JSON.stringify(merged));
}
if (withCoverage) {
  const { createCoverageMap, createCoverageSummary } = require('istanbul-lib-coverage');
  const map = createCoverageMap({});
  for (const lane of ['parallel', 'serial']) {
    try {
      map.merge(JSON.parse(readFileSync(`coverage/${lane}/coverage-final.json`, 'utf8')));
    } catch {
      console.log(`coverage: lane ${lane} left no coverage-final.json`);
    }
  }
  const { resolve } = require('node:path');
  // src/ alone (the figure kept since before issue 35) and with the guard core it runs
  const linesUnder = (...folders) => {
    const roots = folders.map((folder) => resolve(folder) + '/');
    const summary = createCoverageSummary();
    for (const file of map.files()) if (roots.some((root) => file.startsWith(root))) summary.merge(map.fileCoverageFor(file).toSummary());
    const { covered, total, pct } = summary.lines;
    return { covered, total, pct };
  };
  const lines = linesUnder('src');
  const withCore = linesUnder('src', 'packages/core/src');
  writeFileSync('coverage/summary.json', JSON.stringify({ lines, srcAndCore: { lines: withCore } }));
  console.log(`coverage of src/: ${lines.pct}% of lines (${lines.covered} of ${lines.total})`);
  console.log(`coverage of src/ and packages/core/src: ${withCore.pct}% of lines (${withCore.covered} of ${withCore.total})`);
}
process.exit(parallel === 0 && serial === 0 ? 0 : 1);
