// Scenario: the worker role scaled out. The queue is filled through the API while no worker runs, then 1 worker
// process (the baseline) and, on a second backlog of the same size, 2 worker processes drain it; each is timed from
// its first committed event to its last. Every queued event must be stored exactly once. On one machine the two
// workers share its cores with Postgres, so the ratio shows what a second process adds here, not on a second machine.
import { setTimeout as sleep } from 'node:timers/promises';
import { batchBodyFactory } from '../lib/events.mjs';
import { authHeaders, clearQueues, log, scenarioResult, seconds, startToolcoach, withPg } from '../lib/harness.mjs';
import { BenchFailure } from '../lib/verdict.mjs';

const BATCH = 100;

async function fillQueue(apiUrl, runId, batches) {
  const nextBody = batchBodyFactory(BATCH, 11);
  const headers = authHeaders({ 'content-type': 'application/json' });
  for (let i = 0; i < batches; i++) {
    const response = await fetch(`${apiUrl}/v1/events`, { method: 'POST', headers, body: nextBody(runId) });
    if (response.status !== 202) throw new BenchFailure(`queueing ${runId} answered ${response.status}: ${await response.text()}`);
  }
}

const countStored = (client, runId) =>
  client.query(`SELECT count(*)::int AS n FROM events WHERE id LIKE $1`, [`${runId}-%`]).then(({ rows }) => rows[0].n);

/** Starts `workers` worker processes on the filled queue; events/s from the first stored event to the last. */
async function drain(client, runId, expected, workers) {
  const started = await Promise.all(Array.from({ length: workers }, () => startToolcoach({ roles: 'worker' })));
  try {
    let firstAt = 0;
    let firstCount = 0;
    let stored = 0;
    let lastChange = Date.now();
    while (stored < expected) {
      await sleep(20);
      const now = await countStored(client, runId);
      if (now !== stored) lastChange = Date.now();
      if (firstAt === 0 && now > 0) [firstAt, firstCount] = [Date.now(), now];
      stored = now;
      if (Date.now() - lastChange > 30_000) throw new BenchFailure(`${runId}: ${stored} of ${expected} events stored, none for 30 s`);
    }
    if (stored !== expected) throw new BenchFailure(`${runId}: ${stored} events stored for ${expected} queued`);
    const elapsedS = (Date.now() - firstAt) / 1000;
    return { workers, events: expected - firstCount, elapsedS, eventsPerSec: (expected - firstCount) / elapsedS };
  } finally {
    await Promise.all(started.map((worker) => worker.stop()));
  }
}

export default async function scale() {
  await clearQueues();
  // enough batches that a worker's start-up (a few seconds of module loading) is a small part of the timing
  const batches = Math.max(50, Math.round(seconds(60) * 10));
  const api = await startToolcoach({ roles: 'api' });
  try {
    return await withPg(async (client) => {
      const stamp = Date.now().toString(36);
      const runs = [];
      for (const workers of [1, 2]) {
        const runId = `scale${workers}w${stamp}`;
        await fillQueue(api.url, runId, batches);
        const run = await drain(client, runId, batches * BATCH, workers);
        log(
          `scale: ${workers} worker(s) drained ${run.events} events in ${run.elapsedS.toFixed(1)} s: ${Math.round(run.eventsPerSec)} events/s`,
        );
        runs.push(run);
      }
      const [one, two] = runs;
      return scenarioResult({
        value: two.eventsPerSec,
        unit: 'events/s drained, 2 workers',
        baseline: one.eventsPerSec,
        notes:
          `${batches} batches of ${BATCH} events queued with no worker running, then drained by 1 worker process ` +
          `(${Math.round(one.eventsPerSec)} events/s, the baseline) and, on a second backlog, by 2 ` +
          `(${Math.round(two.eventsPerSec)} events/s); each timed from its first stored event to its last, every event stored once. ` +
          `Both share this machine's cores with Postgres and the API.`,
        targetMet: null,
        details: { runs },
      });
    });
  } finally {
    await api.stop();
    await clearQueues();
  }
}
