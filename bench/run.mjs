// `npm run bench [-- scenario ...]`: builds toolcoach, runs the scenarios in order against a stack it starts on a
// dedicated database (or the one in TOOLCOACH_URL), prints a table and writes bench/results/latest.json.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dropBenchDatabase, log, ROOT, settings, stopAll } from './lib/harness.mjs';
import { exitCodeFor, failuresOf, measureScenario } from './lib/verdict.mjs';

const SCENARIOS = ['ingest', 'end-to-end', 'registry', 'validate', 'nightly', 'dashboard', 'sdk', 'scale'];

const USAGE = `usage: npm run bench [-- scenario ...]     (every scenario when none is named; docs/perf.md)
scenarios: ${SCENARIOS.join(', ')}
environment:
  BENCH_DATABASE_URL    the bench database (default postgresql://postgres@127.0.0.1:5432/toolcoach_bench; dropped)
  REDIS_URL             Redis (default redis://127.0.0.1:6379)
  BENCH_QUEUE_PREFIX    queue prefix of the processes under test (default tcbench)
  TOOLCOACH_URL, TOOLCOACH_API_KEY   load an already running stack instead of starting one
  BENCH_SCALE           multiplies every load duration (default 1)
  BENCH_NIGHTLY_SIZES   event counts of the nightly histories (default 1000000,10000000)
  BENCH_KEEP_DB         keep the bench database between runs
  BENCH_SKIP_BUILD      do not run npm run build first
  BENCH_APP_DIR         run another built checkout of toolcoach
  BENCH_RESULTS_FILE    where to write the results (default bench/results/latest.json)
  BENCH_NODE_FLAGS      Node/V8 flags for toolcoach's processes
  BENCH_PROFILE         write a V8 CPU profile of every toolcoach process to bench/results/profiles/
  BENCH_VERBOSE         show the processes' output
  BENCH_SCALE_WORKERS   worker processes of each backlog the scale scenario drains (default 1,2)`;

if (process.argv.slice(2).some((arg) => arg === '--help' || arg === '-h')) {
  console.log(USAGE);
  process.exit(0);
}
const requested = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const unknown = requested.filter((name) => !SCENARIOS.includes(name));
if (unknown.length > 0) {
  console.error(`unknown scenario(s): ${unknown.join(', ')}; choose from ${SCENARIOS.join(', ')}`);
  process.exit(2);
}
const selected = requested.length > 0 ? SCENARIOS.filter((name) => requested.includes(name)) : SCENARIOS;

process.on('SIGINT', () => stopAll().then(() => process.exit(130)));

async function main() {
  if (!settings.externalUrl && !process.env.BENCH_SKIP_BUILD) {
    log('npm run build');
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  }
  if (!settings.externalUrl && !process.env.BENCH_KEEP_DB) await dropBenchDatabase();

  const outFile = process.env.BENCH_RESULTS_FILE
    ? path.resolve(process.env.BENCH_RESULTS_FILE)
    : path.join(ROOT, 'bench', 'results', 'latest.json');
  // One scenario run alone updates its entry and keeps the others from the previous run.
  const previous = existsSync(outFile) ? JSON.parse(readFileSync(outFile, 'utf8')) : null;
  const results = {
    date: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      memGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      cpuModel: os.cpus()[0]?.model ?? null,
    },
    scenarios: Object.fromEntries(SCENARIOS.map((name) => [name, previous?.scenarios?.[name] ?? null])),
  };

  for (const name of selected) {
    log(`scenario ${name}`);
    const started = Date.now();
    try {
      const run = async () => (await import(`./scenarios/${name}.mjs`)).default();
      results.scenarios[name] = await measureScenario(name, run, log);
    } finally {
      await stopAll();
    }
    log(`scenario ${name} took ${Math.round((Date.now() - started) / 1000)} s`);
  }

  if (!settings.externalUrl && !process.env.BENCH_KEEP_DB) await dropBenchDatabase();
  mkdirSync(path.dirname(outFile), { recursive: true });
  writeFileSync(outFile, `${JSON.stringify(results, null, 2)}\n`);
  printTable(results, selected);
  console.log(`\nwritten ${path.relative(process.cwd(), outFile)}`);
  // a scenario that failed (a baseline or server answering errors, a rate of 0, another process on its port) is no
  // result: the run says why and exits non-zero
  process.exitCode = exitCodeFor(failuresOf(results, selected));
}

function printTable(results, names) {
  const rows = names.map((name) => {
    const s = results.scenarios[name] ?? {};
    const met = s.targetMet === true ? 'met' : s.targetMet === false ? 'MISSED' : 'n/a';
    return [name, s.value ?? '-', s.unit ?? '', s.baseline ?? '-', s.ratio ?? '-', s.p50Ms ?? '-', s.p99Ms ?? '-', met];
  });
  const header = ['scenario', 'value', 'unit', 'baseline', 'ratio', 'p50 ms', 'p99 ms', 'target'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padEnd(widths[i])).join('  ');
  const { machine } = results;
  console.log(`\n${results.date}  ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memGiB} GiB, Node ${machine.node}\n`);
  console.log(line(header));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) console.log(line(row));
  for (const name of names) console.log(`\n${name}: ${results.scenarios[name]?.notes ?? ''}`);
}

main().catch(async (error) => {
  console.error(error);
  await stopAll();
  process.exit(1);
});
