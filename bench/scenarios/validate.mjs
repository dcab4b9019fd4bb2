// Scenario 4: POST /v1/tools/:name/validate with arguments that fail (wrong name, with a suggestion), 50 connections.
// Baseline: bare Fastify parsing the same body and answering a constant JSON document of the same size. Saturation
// gives the capacity; then an open-loop run at half of it (requests evenly spaced, latency counted from when each was
// due: the rate an agent fleet would see on a sized deployment) gives the latency the target is about: at saturation
// p99 is mostly queueing.
import { registerBenchTools } from '../lib/registry-setup.mjs';
import { api, authHeaders, load, log, openLoad, scenarioResult, seconds, withBaseline, withToolcoach } from '../lib/harness.mjs';

const CONNECTIONS = 50;
const BODY = JSON.stringify({ arguments: { numbers: [12, 18] } });

export default async function validate() {
  const durationS = seconds(10);
  return withToolcoach({ roles: 'api' }, async (app) => {
    await registerBenchTools(app.url);
    const path = '/v1/tools/prime_factors/validate';
    const sample = await api(app.url, path, { method: 'POST', body: JSON.parse(BODY) });
    const post = { method: 'POST', body: BODY, connections: CONNECTIONS };
    const baseline = await withBaseline('bare-json.mjs', { BASELINE_BODY: sample.text }, async (server) => {
      await load({ ...post, url: `${server.url}/doc`, durationS: 2, headers: { 'content-type': 'application/json' } });
      return load({ ...post, url: `${server.url}/doc`, durationS, headers: { 'content-type': 'application/json' } });
    });
    const headers = authHeaders({ 'content-type': 'application/json' });
    await load({ ...post, url: `${app.url}${path}`, durationS: 2, headers });
    const run = await load({ ...post, url: `${app.url}${path}`, durationS, headers });
    const halfRate = Math.max(1, Math.floor(run.reqPerSec / 2));
    const half = await openLoad({ ...post, url: `${app.url}${path}`, durationS, headers, rate: halfRate });
    log(`validate: ${run.reqPerSec} req/s (baseline ${baseline.reqPerSec}) p99 ${run.p99Ms} ms; at ${halfRate} req/s p99 ${half.p99Ms} ms`);
    return scenarioResult({
      value: run.reqPerSec,
      unit: 'req/s',
      baseline: baseline.reqPerSec,
      p50Ms: half.p50Ms,
      p99Ms: half.p99Ms,
      targetMet: half.p99Ms < 5 && run.errors === 0 && half.errors === 0,
      notes: `${CONNECTIONS} connections x ${durationS} s, body ${BODY}; answer ${sample.text.length} B (valid: ${sample.json.valid}); errors ${run.errors + half.errors}; latency at half capacity (${halfRate} req/s): p50 ${half.p50Ms} p99 ${half.p99Ms} ms; at saturation p99 ${run.p99Ms} ms; baseline p99 ${baseline.p99Ms} ms. Target: p99 < 5 ms at half capacity.`,
      details: { run, half, baseline, answer: sample.json },
    });
  });
}
