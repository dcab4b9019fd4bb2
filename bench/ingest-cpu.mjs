// `node bench/ingest-cpu.mjs [batches] [rounds]`: the API's CPU time per accepted event on the ingest path, a number
// that other load on a shared machine barely moves (throughput swings with it). Starts the API like the ingest scenario
// (ROLES=api, RATE_LIMIT_REQUESTS=0, LOG_LEVEL=warn), warms it up, then per round sends a fixed number of 100-event
// batches over 20 connections and reads the process's utime + stime from /proc before and after. The bare Fastify +
// BullMQ baseline is measured the same way. Build first (`npm run build`); BENCH_APP_DIR, BENCH_NODE_FLAGS and
// BENCH_PROFILE apply as in `npm run bench`.
import { batchBodyFactory } from './lib/events.mjs';
import {
  authHeaders,
  clearQueues,
  cpuTimeMs,
  dropBenchDatabase,
  load,
  log,
  sampleRss,
  settings,
  startBaseline,
  startToolcoach,
  stopAll,
} from './lib/harness.mjs';

if (process.argv.slice(2).some((arg) => arg === '--help' || arg === '-h')) {
  console.log(`usage: node bench/ingest-cpu.mjs [batches] [rounds]     (after npm run build; docs/perf.md)
the API's CPU time per accepted event on the ingest path, against a bare Fastify + BullMQ baseline
arguments:
  batches   100-event batches sent per round (default 2000)
  rounds    rounds measured (default 5)
environment:
  BENCH_CPU_ONLY   toolcoach: skip the baseline
  BENCH_APP_DIR, BENCH_NODE_FLAGS, BENCH_PROFILE, BENCH_DATABASE_URL, BENCH_KEEP_DB, BENCH_QUEUE_PREFIX, REDIS_URL,
  BENCH_VERBOSE   as for npm run bench`);
  process.exit(0);
}
const BATCH = 100;
const CONNECTIONS = 20;
const batches = Number(process.argv[2] ?? 2000);
const rounds = Number(process.argv[3] ?? 5);
// BENCH_CPU_ONLY=toolcoach skips the baseline (profiling, quick before/after checks)
const only = process.env.BENCH_CPU_ONLY ?? null;
const WARM_UP_BATCHES = 1000;

async function measure(label, server) {
  const nextBody = batchBodyFactory(BATCH);
  const send = (runId, amount) =>
    load({
      label,
      url: server.url,
      connections: CONNECTIONS,
      amount,
      headers: authHeaders({ 'content-type': 'application/json' }),
      requests: [{ method: 'POST', path: '/v1/events', setupRequest: (request) => ({ ...request, body: nextBody(runId) }) }],
    });
  await send(`${label}-warm`, WARM_UP_BATCHES);
  const results = [];
  for (let round = 0; round < rounds; round += 1) {
    await clearQueues();
    await clearQueues(`${settings.queuePrefix}-baseline`);
    const rss = sampleRss(server.pid);
    const cpuBefore = cpuTimeMs(server.pid);
    const run = await send(`${label}-${round}`, batches);
    const cpuMs = cpuTimeMs(server.pid) - cpuBefore;
    const result = {
      cpuUsPerEvent: Number(((cpuMs * 1000) / (batches * BATCH)).toFixed(2)),
      eventsPerSec: Math.round(run.reqPerSec * BATCH),
      p99Ms: run.p99Ms,
      rssMb: rss.stop(),
    };
    log(`${label} round ${round}: ${JSON.stringify(result)}`);
    results.push(result);
  }
  // the minimum is the round least disturbed by other work on the machine; the median shows how much that was
  const cpu = results.map((r) => r.cpuUsPerEvent).sort((a, b) => a - b);
  return { minCpuUsPerEvent: cpu[0], medianCpuUsPerEvent: cpu[Math.floor(cpu.length / 2)], rounds: results };
}

async function main() {
  if (!process.env.BENCH_KEEP_DB) await dropBenchDatabase();
  let baseline = { minCpuUsPerEvent: null, medianCpuUsPerEvent: null, rounds: [] };
  if (only !== 'toolcoach') {
    const baselineServer = await startBaseline('bare-ingest.mjs');
    baseline = await measure('baseline', baselineServer);
    await baselineServer.stop();
  }
  const app = await startToolcoach({ roles: 'api' });
  const toolcoach = await measure('toolcoach', app);
  await app.stop();
  await clearQueues();
  await clearQueues(`${settings.queuePrefix}-baseline`);
  const cpuRatio = Number((baseline.minCpuUsPerEvent / toolcoach.minCpuUsPerEvent).toFixed(3));
  console.log(JSON.stringify({ batches, batchSize: BATCH, baseline, toolcoach, cpuRatio }, null, 2));
  console.log(
    `API CPU per event (min / median of ${rounds} rounds of ${batches} batches): toolcoach ${toolcoach.minCpuUsPerEvent} / ` +
      `${toolcoach.medianCpuUsPerEvent} µs, baseline ${baseline.minCpuUsPerEvent} / ${baseline.medianCpuUsPerEvent} µs; ` +
      `baseline / toolcoach ${cpuRatio} (min), peak RSS ${Math.max(...toolcoach.rounds.map((r) => r.rssMb))} MB`,
  );
}

main().catch(async (error) => {
  console.error(error);
  await stopAll();
  process.exit(1);
});
