// Scenario 4: POST /v1/tools/:name/validate with arguments that fail (wrong name, with a suggestion), 50 connections.
// Baseline: bare Fastify parsing the same body and answering a constant JSON document of the same size.
import { registerBenchTools } from '../lib/registry-setup.mjs';
import { api, authHeaders, load, log, scenarioResult, seconds, withBaseline, withToolcoach } from '../lib/harness.mjs';

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
    log(`validate: ${run.reqPerSec} req/s (baseline ${baseline.reqPerSec}) p99 ${run.p99Ms} ms`);
    return scenarioResult({
      value: run.reqPerSec,
      unit: 'req/s',
      baseline: baseline.reqPerSec,
      p50Ms: run.p50Ms,
      p99Ms: run.p99Ms,
      targetMet: run.p99Ms < 5 && run.errors === 0,
      notes: `${CONNECTIONS} connections x ${durationS} s, body ${BODY}; answer ${sample.text.length} B (valid: ${sample.json.valid}); errors ${run.errors}; baseline p99 ${baseline.p99Ms} ms. Target: p99 < 5 ms.`,
      details: { run, baseline, answer: sample.json },
    });
  });
}
