// Scenario: the worker role scaled out. The queue is filled through the API while no worker runs, then 1 worker
// process (the baseline) and, on a second backlog of the same size, 2 worker processes drain it; each is timed from
// its first committed event to its last. Every queued event must be stored exactly once. On one machine the two
// workers share its cores with Postgres, so the ratio shows what a second process adds here, not on a second machine.
// Each drain also reports CPU per event, which a shared machine's load does not skew as it skews events/s: the worker
// processes' CPU time and that of the Postgres backends of the bench database, from the first stored event to the
// last. BENCH_SCALE_WORKERS=1 drains one backlog with 1 worker only (a quick CPU-per-event measurement).
import { setTimeout as sleep } from 'node:timers/promises';
import { batchBodyFactory } from '../lib/events.mjs';
import { authHeaders, clearQueues, cpuTimeMs, log, scenarioResult, seconds, startToolcoach, withPg } from '../lib/harness.mjs';
import { BenchFailure } from '../lib/verdict.mjs';

const BATCH = 100;
const WORKER_COUNTS = (process.env.BENCH_SCALE_WORKERS ?? '1,2').split(',').map(Number);

async function fillQueue(apiUrl, runId, batches) {
  const nextBody = batchBodyFactory(BATCH, 11);
  const headers = authHeaders({ 'content-type': 'application/json' });
  for (let i = 0; i < batches; i++) {
    const response = await fetch(`${apiUrl}/v1/events`, { method: 'POST', headers, body: nextBody(runId) });
    if (response.status !== 202) throw new BenchFailure(`queueing ${runId} answered ${response.status}: ${await response.text()}`);
  }
}

/** CPU time (user + system) a process has used so far, in µs; 0 once it is gone. */
const cpuMicros = (pid) => (cpuTimeMs(pid) ?? 0) * 1000;

/** CPU µs used so far by each Postgres backend of the bench database, but the harness's own. */
async function postgresBackendCpu(client) {
  const { rows } = await client.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`);
  return new Map(rows.map(({ pid }) => [pid, cpuMicros(pid)]));
}

/** CPU µs the backends used between two readings (a backend that connected in between counts whole). */
function postgresCpuBetween(before, after) {
  let total = 0;
  for (const [pid, micros] of after) total += micros - (before.get(pid) ?? 0);
  return total;
}

// the claims of the run's ids, a range of event_ids' key: a LIKE over events read the whole table on every poll,
// competing with the workers for the cores it measures
const countStored = (client, runId) =>
  client
    .query(`SELECT count(*)::int AS n FROM event_ids WHERE id >= $1 AND id < $2`, [`${runId}-`, `${runId}.`])
    .then(({ rows }) => rows[0].n);

/** Starts `workers` worker processes on the filled queue; events/s from the first stored event to the last. */
async function drain(client, runId, expected, workers) {
  // watched from the moment they are spawned: waiting out their start, as other scenarios do, let them drain most of
  // the backlog unseen (all of it once they had got fast enough, and the run then measured 0 events)
  const started = await Promise.all(Array.from({ length: workers }, () => startToolcoach({ roles: 'worker', isAwaited: false })));
  try {
    const workerCpu = () => started.reduce((sum, worker) => sum + cpuMicros(worker.pid), 0);
    let firstAt = 0;
    let firstCount = 0;
    let firstWorkerCpu = 0;
    let firstPostgresCpu = new Map();
    let stored = 0;
    let lastChange = Date.now();
    while (stored < expected) {
      await sleep(50);
      const now = await countStored(client, runId);
      if (now !== stored) lastChange = Date.now();
      if (firstAt === 0 && now > 0) {
        [firstAt, firstCount, firstWorkerCpu] = [Date.now(), now, workerCpu()];
        firstPostgresCpu = await postgresBackendCpu(client);
      }
      stored = now;
      if (Date.now() - lastChange > 30_000) throw new BenchFailure(`${runId}: ${stored} of ${expected} events stored, none for 30 s`);
    }
    // read before the workers stop: their backends exit with them
    const [lastWorkerCpu, lastPostgresCpu] = [workerCpu(), await postgresBackendCpu(client)];
    if (stored !== expected) throw new BenchFailure(`${runId}: ${stored} events stored for ${expected} queued`);
    const elapsedS = (Date.now() - firstAt) / 1000;
    const events = expected - firstCount;
    return {
      workers,
      events,
      elapsedS,
      eventsPerSec: events / elapsedS,
      workerCpuUsPerEvent: Math.round((lastWorkerCpu - firstWorkerCpu) / events),
      postgresCpuUsPerEvent: Math.round(postgresCpuBetween(firstPostgresCpu, lastPostgresCpu) / events),
    };
  } finally {
    await Promise.all(started.map((worker) => worker.stop()));
  }
}

export default async function scale() {
  await clearQueues();
  // enough batches that a drain lasts seconds: 60,000 events took one worker under a second (2026-11-26)
  const batches = Math.max(50, Math.round(seconds(60) * 40));
  const api = await startToolcoach({ roles: 'api' });
  try {
    return await withPg(async (client) => {
      const stamp = Date.now().toString(36);
      const runs = [];
      for (const workers of WORKER_COUNTS) {
        const runId = `scale${workers}w${stamp}`;
        await fillQueue(api.url, runId, batches);
        const run = await drain(client, runId, batches * BATCH, workers);
        log(
          `scale: ${workers} worker(s) drained ${run.events} events in ${run.elapsedS.toFixed(1)} s: ${Math.round(run.eventsPerSec)} events/s; ` +
            `CPU per event: worker ${run.workerCpuUsPerEvent} µs, Postgres ${run.postgresCpuUsPerEvent} µs`,
        );
        runs.push(run);
      }
      const cpu = runs
        .map((run) => `${run.workers} worker(s): ${run.workerCpuUsPerEvent} µs worker, ${run.postgresCpuUsPerEvent} µs Postgres`)
        .join('; ');
      const [one, two] = runs;
      if (!two) {
        return scenarioResult({
          value: one.eventsPerSec,
          unit: `events/s drained, ${one.workers} worker(s)`,
          notes:
            `${batches} batches of ${BATCH} events queued with no worker running, then drained by ${one.workers} worker process(es), ` +
            `timed from the first stored event to the last, every event stored once. CPU per event: ${cpu}.`,
          details: { runs },
        });
      }
      return scenarioResult({
        value: two.eventsPerSec,
        unit: `events/s drained, ${two.workers} workers`,
        baseline: one.eventsPerSec,
        notes:
          `${batches} batches of ${BATCH} events queued with no worker running, then drained by ${one.workers} worker process ` +
          `(${Math.round(one.eventsPerSec)} events/s, the baseline) and, on a second backlog, by ${two.workers} ` +
          `(${Math.round(two.eventsPerSec)} events/s); each timed from its first stored event to its last, every event stored once. ` +
          `Both share this machine's cores with Postgres and the API. CPU per event: ${cpu}.`,
        targetMet: null,
        details: { runs },
      });
    });
  } finally {
    await api.stop();
    await clearQueues();
  }
}
