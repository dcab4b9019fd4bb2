// Scenario 1: POST /v1/events, 100-event batches, 20 connections, 20 s, API alone (ROLES=api, no worker), against a
// bare Fastify + BullMQ server doing the least the same request needs.
import { batchBodyFactory } from '../lib/events.mjs';
import {
  authHeaders,
  clearQueues,
  cpuTimeMs,
  load,
  log,
  sampleRss,
  scenarioResult,
  seconds,
  settings,
  withBaseline,
  withToolcoach,
} from '../lib/harness.mjs';

const BATCH = 100;
const CONNECTIONS = 20;
// Not counted: JIT warm-up of each server. 2 s left toolcoach (far more code than the baseline) still compiling in the
// measured run, whose result then depended on which run came first (issue 18).
const WARM_UP_S = 5;

function postBatches(label, url, durationS, runId, overallRate) {
  const nextBody = batchBodyFactory(BATCH);
  return load({
    label,
    url,
    connections: CONNECTIONS,
    durationS,
    overallRate,
    headers: authHeaders({ 'content-type': 'application/json' }),
    requests: [{ method: 'POST', path: '/v1/events', setupRequest: (request) => ({ ...request, body: nextBody(runId) }) }],
  });
}

async function measureApi(label, env, durationS) {
  return withToolcoach({ roles: 'api', env }, async (app) => {
    await postBatches(`ingest ${label} (toolcoach)`, app.url, seconds(WARM_UP_S), `${label}-warm`);
    const rss = app.pid ? sampleRss(app.pid) : null;
    const cpuBeforeMs = app.pid ? cpuTimeMs(app.pid) : null;
    const run = await postBatches(`ingest ${label} (toolcoach)`, app.url, durationS, label);
    const result = {
      ...run,
      eventsPerSec: Math.round(run.reqPerSec * BATCH),
      rssMb: rss?.stop() ?? null,
      cpuUsPerEvent: cpuUsPerEvent(app.pid, cpuBeforeMs, run),
    };
    log(
      `ingest ${label}: ${result.eventsPerSec} events/s p99 ${result.p99Ms} ms rss ${result.rssMb} MB ` +
        `cpu ${result.cpuUsPerEvent} µs/event errors ${result.errors}`,
    );
    await clearQueues();
    return result;
  });
}

/** CPU time the server spent per accepted event during a run: steadier than events/s on a shared machine. */
function cpuUsPerEvent(pid, cpuBeforeMs, run) {
  if (!pid || cpuBeforeMs === null) return null;
  const events = run.okRequests * BATCH;
  return Number((((cpuTimeMs(pid) - cpuBeforeMs) * 1000) / events).toFixed(2));
}

export default async function ingest() {
  const durationS = seconds(20);
  await clearQueues();
  const baseline = await withBaseline('bare-ingest.mjs', {}, async (server) => {
    await postBatches('ingest baseline (bare Fastify + BullMQ)', server.url, seconds(WARM_UP_S), 'base-warm');
    const cpuBeforeMs = cpuTimeMs(server.pid);
    const run = await postBatches('ingest baseline (bare Fastify + BullMQ)', server.url, durationS, 'base');
    return { ...run, eventsPerSec: Math.round(run.reqPerSec * BATCH), cpuUsPerEvent: cpuUsPerEvent(server.pid, cpuBeforeMs, run) };
  });
  await clearQueues(`${settings.queuePrefix}-baseline`);
  log(`ingest baseline: ${baseline.eventsPerSec} events/s p99 ${baseline.p99Ms} ms`);

  const ours = await measureApi('bench', {}, durationS);
  // What the defaults cost on top: the per-request Redis rate-limit counter (on by default) and info-level logging.
  const variantS = seconds(10);
  const withRateLimit = await measureApi('ratelimit', { RATE_LIMIT_REQUESTS: '999999999' }, variantS);
  const withInfoLogs = await measureApi('loginfo', { LOG_LEVEL: 'info' }, variantS);

  const ratio = ours.eventsPerSec / baseline.eventsPerSec;
  const targetMet = ratio >= 0.5 && ours.p99Ms < 50 && ours.errors === 0 && (ours.rssMb ?? 0) < 300;
  return scenarioResult({
    value: ours.eventsPerSec,
    unit: 'events/s',
    baseline: baseline.eventsPerSec,
    p50Ms: ours.p50Ms,
    p99Ms: ours.p99Ms,
    targetMet,
    notes:
      `ROLES=api only, RATE_LIMIT_REQUESTS=0, LOG_LEVEL=warn; ${CONNECTIONS} connections x ${durationS} s, ${BATCH}-event batches; ` +
      `errors ${ours.errors}, API peak RSS ${ours.rssMb} MB; baseline p99 ${baseline.p99Ms} ms. ` +
      `CPU per event: ${ours.cpuUsPerEvent} µs (baseline ${baseline.cpuUsPerEvent} µs). ` +
      `Rate limiter on: ${withRateLimit.eventsPerSec} events/s (p99 ${withRateLimit.p99Ms} ms); ` +
      `LOG_LEVEL=info: ${withInfoLogs.eventsPerSec} events/s (p99 ${withInfoLogs.p99Ms} ms). ` +
      'Target: >= 0.5 x baseline, p99 < 50 ms, no errors, RSS < 300 MB.',
    details: { baseline, ours, withRateLimit, withInfoLogs },
  });
}
