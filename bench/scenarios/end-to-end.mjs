// Scenario 2: accept -> categorize -> commit. API (ROLES=api) and worker (ROLES=worker) run as separate processes.
// After a warm-up, a saturation probe measures capacity (events committed per second) and where the machine's CPU went
// per event (api, worker, Postgres, Redis, the load generator); then 60 s at 80% of that capacity measure
// the queue lag (events.stored_at - events.received_at). Every accepted id is counted in Postgres afterwards: none
// lost, none stored or rolled up twice. Baseline: the same rows written with pg multi-row INSERTs into a copy of
// the events table.
import { setTimeout as sleep } from 'node:timers/promises';
import { batchBodyFactory, makeEvent, random } from '../lib/events.mjs';
import {
  authHeaders,
  clearQueues,
  cpuLedger,
  load,
  log,
  scenarioResult,
  seconds,
  startToolcoach,
  settings,
  withPg,
} from '../lib/harness.mjs';

const BATCH = 100;
const CONNECTIONS = 20;
const BASELINE_CLIENTS = 4; // = WORKER_CONCURRENCY's default
const ROUNDS = 3;

async function projectId(client) {
  const { rows } = await client.query(
    `SELECT p.id FROM projects p JOIN api_keys k ON k.project_id = p.id WHERE k.key_hash = encode(sha256($1::bytea), 'hex')`,
    [settings.apiKey],
  );
  return rows[0].id;
}

/** Events stored under ids starting `${prefix}-`: their claims, a range of event_ids' key (cheap enough to poll). */
async function countStored(client, project, prefix) {
  const { rows } = await client.query(`SELECT count(*)::int AS n FROM event_ids WHERE project_id = $1 AND id >= $2 AND id < $3`, [
    project,
    `${prefix}-`,
    `${prefix}.`,
  ]);
  return rows[0].n;
}

/** Polls until `expected` events with the prefix are stored (or nothing moves for 30 s); returns when that was. */
async function waitStored(client, project, prefix, expected) {
  let last = -1;
  let lastChange = Date.now();
  for (;;) {
    const n = await countStored(client, project, prefix);
    if (n >= expected) return { stored: n, at: Date.now() };
    if (n !== last) {
      last = n;
      lastChange = Date.now();
    } else if (Date.now() - lastChange > 30_000) return { stored: n, at: lastChange };
    await sleep(50);
  }
}

function postBatches(url, amount, runId, overallRate) {
  const nextBody = batchBodyFactory(BATCH, runId.length);
  return load({
    label: `end-to-end ${runId} (toolcoach api)`,
    url,
    connections: CONNECTIONS,
    amount,
    overallRate,
    headers: authHeaders({ 'content-type': 'application/json' }),
    requests: [{ method: 'POST', path: '/v1/events', setupRequest: (request) => ({ ...request, body: nextBody(runId) }) }],
  });
}

async function baselineRowsPerSec(client, durationS) {
  await client.query('DROP TABLE IF EXISTS bench_baseline_events');
  await client.query('CREATE TABLE bench_baseline_events (LIKE events INCLUDING ALL)');
  const columns = [
    'project_id',
    'id',
    'tool',
    'status',
    'arguments',
    'result',
    'error_type',
    'error_message',
    'duration_ms',
    'occurred_at',
    'received_at',
    'agent',
    'model',
    'framework',
    'session_id',
    'description_version',
    'category',
    'subtype',
    'argument_path',
    'fingerprint',
  ];
  const r = random(3);
  const now = new Date().toISOString();
  const project = await projectId(client);
  // Rows are built before the clock starts, so the baseline measures Postgres, not this process building parameters.
  const pool = Array.from({ length: 20 * BATCH }, () => {
    const e = makeEvent(r, '');
    return [
      project,
      null,
      e.tool,
      e.status,
      JSON.stringify(e.arguments),
      e.result ? JSON.stringify(e.result) : null,
      e.error?.type ?? null,
      e.error?.message ?? null,
      e.durationMs,
      now,
      now,
      e.agent,
      e.model,
      e.framework,
      e.sessionId,
      e.descriptionVersion,
      e.error ? 'runtime_error' : null,
      null,
      null,
      e.error ? 'f'.repeat(40) : null,
    ];
  });
  const placeholders = Array.from(
    { length: BATCH },
    (_, row) => `(${columns.map((_, c) => `$${row * columns.length + c + 1}`).join(',')})`,
  ).join(',');
  const text = `INSERT INTO bench_baseline_events (${columns.join(',')}) VALUES ${placeholders} ON CONFLICT DO NOTHING`;
  const { default: pg } = await import('pg');
  const writers = await Promise.all(
    Array.from({ length: BASELINE_CLIENTS }, async () => {
      const c = new pg.Client({ connectionString: settings.databaseUrl });
      await c.connect();
      return c;
    }),
  );
  let rows = 0;
  let seq = 0;
  const deadline = Date.now() + durationS * 1000;
  const started = Date.now();
  await Promise.all(
    writers.map(async (c) => {
      while (Date.now() < deadline) {
        const params = [];
        const offset = (seq / BATCH) % 20;
        for (let i = 0; i < BATCH; i++) {
          const row = pool[offset * BATCH + i];
          row[1] = `b-${seq++}`;
          params.push(...row);
        }
        await c.query({ name: 'baseline-insert', text, values: params });
        rows += BATCH;
      }
    }),
  );
  const elapsedS = (Date.now() - started) / 1000;
  await Promise.all(writers.map((c) => c.end()));
  await client.query('DROP TABLE bench_baseline_events');
  return rows / elapsedS;
}

/**
 * Capacity: a fixed number of requests as fast as 20 connections send them (every 202 counted: accepted ids are exactly
 * the ones that must be stored), timed from the first request to the last event committed; and where the machine's
 * CPU went per committed event meanwhile (the limit is the sum, on 2 cores).
 */
async function probeCapacity(api, worker, client, project, runId) {
  const probeRequests = Math.round(800 * settings.scale);
  const started = Date.now();
  const ledger = cpuLedger({ api: api.pid, worker: worker.pid, postgres: 'postgres', redis: 'redis-server' });
  const probe = await postBatches(api.url, probeRequests, runId);
  const accepted = probe.okRequests * BATCH;
  const done = await waitStored(client, project, runId, accepted);
  const cpu = ledger.stop(done.stored);
  const capacity = done.stored / ((done.at - started) / 1000);
  log(
    `end-to-end ${runId}: accepted ${accepted} (${Math.round(probe.reqPerSec * BATCH)}/s), committed ${done.stored} at ${Math.round(capacity)} events/s`,
  );
  if (cpu) {
    log(`end-to-end ${runId} CPU µs per event: ${JSON.stringify(cpu.usPerUnit)}; cores busy ${Math.round(cpu.busyShare * 100)}%`);
    log(`end-to-end ${runId} CPU share in the kernel: ${JSON.stringify(cpu.systemShare)}`);
  }
  return { capacity, probe: { ...probe, accepted, committed: done.stored, cpu } };
}

export default async function endToEnd() {
  if (settings.externalUrl) throw new Error('end-to-end starts its own api and worker; unset TOOLCOACH_URL');
  await clearQueues();
  const api = await startToolcoach({ roles: 'api' });
  const worker = await startToolcoach({ roles: 'worker' });
  try {
    return await withPg(async (client) => {
      const project = await projectId(client);

      // Not counted: JIT warm-up of the api and the worker (as the ingest scenario warms its servers up). A cold probe
      // also measured both processes compiling: 18,600-19,900 events/s cold against 22,200-24,000 warm, same build.
      // 2,000 requests (~5 s, like ingest's): after 200, the api still spent ~12.5 µs per event in the first round and
      // ~8 in the third, and the third round's ratio was the highest in 5 runs of 5 (2026-11-26).
      const warmUpRequests = Math.round(2000 * settings.scale);
      const warmUp = await postBatches(api.url, warmUpRequests, 'warm');
      await waitStored(client, project, 'warm', warmUp.okRequests * BATCH);

      // Rounds of baseline then probe, each probe's ratio against the baseline just before it; the round with the
      // median ratio is the result. This machine's speed drifts within minutes (the same build measured 0.39 to 0.54
      // against a baseline measured once): pairing each probe with its own baseline and taking the median keeps one
      // slow or fast stretch from deciding the result either way.
      const rounds = [];
      for (let round = 0; round < ROUNDS; round++) {
        const baseline = await baselineRowsPerSec(client, seconds(8));
        const measured = await probeCapacity(api, worker, client, project, `probe${round}`);
        rounds.push({ baseline, ...measured, ratio: measured.capacity / baseline });
        log(
          `end-to-end round ${round + 1}: baseline ${Math.round(baseline)} rows/s (multi-row INSERT, ${BATCH} rows, ${BASELINE_CLIENTS} clients); ` +
            `capacity ${Math.round(measured.capacity)} events/s; ratio ${(measured.capacity / baseline).toFixed(3)}`,
        );
      }
      const median = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(ROUNDS / 2)];
      const { baseline, capacity, probe } = median;

      const sustainedS = seconds(60);
      const rate = Math.max(1, Math.floor((0.8 * capacity) / BATCH));
      const sustained = await postBatches(api.url, rate * sustainedS, 'sus', rate);
      const accepted = sustained.okRequests * BATCH;
      const done = await waitStored(client, project, 'sus', accepted);
      const {
        rows: [lag],
      } = await client.query(
        `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) AS p99
         FROM (SELECT extract(epoch FROM stored_at - received_at) * 1000 AS ms FROM events WHERE project_id = $1 AND id LIKE 'sus-%') t`,
        [project],
      );
      const {
        rows: [consistency],
      } = await client.query(
        `SELECT (SELECT count(*) FROM events WHERE project_id = $1)::bigint AS events,
                (SELECT coalesce(sum(calls), 0) FROM hourly_rollups WHERE project_id = $1)::bigint AS rolled_up`,
        [project],
      );
      const probeLost = rounds.reduce((sum, round) => sum + round.probe.accepted - round.probe.committed, 0);
      const lost = accepted - done.stored + probeLost;
      const httpErrors = sustained.errors + rounds.reduce((sum, round) => sum + round.probe.errors, 0);
      const doubleCounted = Number(consistency.rolled_up) - Number(consistency.events);
      log(
        `end-to-end sustained: ${rate * BATCH} events/s offered, lag p50 ${lag.p50} p99 ${lag.p99} ms, lost ${lost}, double-counted ${doubleCounted}`,
      );

      const targetMet = capacity / baseline >= 0.5 && lag.p99 < 2000 && lost === 0 && doubleCounted === 0 && httpErrors === 0;
      return scenarioResult({
        value: capacity,
        unit: 'events/s committed',
        baseline,
        p50Ms: lag.p50,
        p99Ms: lag.p99,
        targetMet,
        notes:
          `api (ROLES=api) and worker (ROLES=worker, WORKER_CONCURRENCY=4) as two processes. Capacity from saturation probes ` +
          `(${probe.requests} requests, ${CONNECTIONS} connections), each after its own ${seconds(8)} s baseline; the median of ${ROUNDS} rounds ` +
          `(ratios ${rounds.map((round) => round.ratio.toFixed(3)).join(', ')}). ` +
          `Lag p50/p99 (accept -> committed) over ${sustainedS} s at ${rate * BATCH} events/s (80% of capacity). ` +
          `Accepted ${accepted} (sustained), stored ${done.stored}; lost ${lost} (probes included); rollup calls - stored events = ${doubleCounted}; HTTP errors ${httpErrors}. ` +
          `Baseline: pg multi-row INSERT, ${BATCH} rows per statement, ${BASELINE_CLIENTS} clients. Target: >= 0.5 x baseline, lag p99 < 2 s, 0 lost/duplicated.`,
        details: {
          probe,
          rounds: rounds.map(({ baseline: roundBaseline, capacity: roundCapacity, ratio, probe: { cpu } }) => ({
            baseline: Math.round(roundBaseline),
            capacity: Math.round(roundCapacity),
            ratio: Number(ratio.toFixed(3)),
            cpu,
          })),
          sustained: { ...sustained, offeredEventsPerSec: rate * BATCH, accepted, stored: done.stored },
          lost,
          doubleCounted,
          lagMs: lag,
        },
      });
    });
  } finally {
    await worker.stop();
    await api.stop();
    await clearQueues();
  }
}
