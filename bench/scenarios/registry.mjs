// Scenario 3: the registry's read paths, served from memory with ETags: GET /v1/tools/:name/description and
// GET /v1/tools?format=openai, each answered in full (200) and revalidated (If-None-Match -> 304), 50 connections.
// Baseline: bare Fastify answering a constant JSON document of the same size.
import { registerBenchTools } from '../lib/registry-setup.mjs';
import { api, authHeaders, load, log, sampleRss, scenarioResult, seconds, withBaseline, withToolcoach } from '../lib/harness.mjs';

const CONNECTIONS = 50;

export default async function registry() {
  const durationS = seconds(10);
  return withToolcoach({ roles: 'api' }, async (app) => {
    await registerBenchTools(app.url);
    const paths = { description: '/v1/tools/search_docs/description', list: '/v1/tools?format=openai' };
    const runs = {};
    const rss = app.pid ? sampleRss(app.pid) : null;
    for (const [name, path] of Object.entries(paths)) {
      const first = await api(app.url, path);
      const etag = first.headers.get('etag');
      const bytes = Buffer.byteLength(first.text);
      const baseline = await withBaseline('bare-json.mjs', { BASELINE_BODY: first.text }, async (server) => {
        await load({ url: `${server.url}/doc`, connections: CONNECTIONS, durationS: 2 });
        return load({ url: `${server.url}/doc`, connections: CONNECTIONS, durationS });
      });
      for (const [variant, extra] of [
        ['200', {}],
        ['304', { 'if-none-match': etag }],
      ]) {
        const url = `${app.url}${path}`;
        await load({ url, connections: CONNECTIONS, durationS: 2, headers: authHeaders(extra) });
        const run = await load({ url, connections: CONNECTIONS, durationS, headers: authHeaders(extra) });
        const expected = variant === '200' ? 200 : 304;
        const wrongStatus = run.requests - (run.statuses[expected] ?? 0);
        runs[`${name}-${variant}`] = {
          ...run,
          bytes,
          wrongStatus,
          baselineReqPerSec: baseline.reqPerSec,
          baselineP99Ms: baseline.p99Ms,
          ratio: run.reqPerSec / baseline.reqPerSec,
        };
        log(`registry ${name} ${variant}: ${run.reqPerSec} req/s (baseline ${baseline.reqPerSec}) p99 ${run.p99Ms} ms`);
      }
    }
    const rssMb = rss?.stop() ?? null;
    const worst = Object.entries(runs).sort(([, a], [, b]) => a.ratio - b.ratio)[0];
    const p99Ms = Math.max(...Object.values(runs).map((r) => r.p99Ms));
    const errors = Object.values(runs).reduce((sum, r) => sum + r.errors + r.wrongStatus, 0);
    return scenarioResult({
      value: worst[1].reqPerSec,
      unit: 'req/s',
      baseline: worst[1].baselineReqPerSec,
      p50Ms: worst[1].p50Ms,
      p99Ms,
      targetMet: Object.values(runs).every((r) => r.ratio >= 0.4 && r.p99Ms < 5) && errors === 0,
      notes:
        `Worst of 4 paths (${worst[0]}); p99 is the worst path's. ` +
        Object.entries(runs)
          .map(([k, r]) => `${k}: ${r.reqPerSec} req/s = ${r.ratio.toFixed(2)} x baseline, p99 ${r.p99Ms} ms`)
          .join('; ') +
        `. ${CONNECTIONS} connections x ${durationS} s; API peak RSS ${rssMb} MB; errors ${errors}. Target: >= 0.4 x baseline, p99 < 5 ms.`,
      details: { runs, rssMb },
    });
  });
}
