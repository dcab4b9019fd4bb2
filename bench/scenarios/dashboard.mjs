// Scenario 6: the dashboard's read endpoints against the 10M-event project (lib/dataset.mjs; made by the nightly
// scenario earlier in the run, or here when run alone), 4 connections each, p95 per endpoint.
import { benchDays, ensureDataset, projectHeaders, runNightly } from '../lib/dataset.mjs';
import { api, load, log, scenarioResult, seconds, withPg, withToolcoach } from '../lib/harness.mjs';
import { NIGHTLY_SIZES, sizeLabel } from './nightly.mjs';

const CONNECTIONS = 4;

export default async function dashboard() {
  const size = NIGHTLY_SIZES.at(-1);
  const label = sizeLabel(size);
  const durationS = seconds(5);
  // with a worker: the nightly runs it may need are queued for one (with `api` alone the scenario waited 30 min for a
  // run nobody took whenever it ran without the nightly scenario before it); idle while the reads are measured
  return withToolcoach({ roles: 'api,worker' }, async (app) => {
    const dataset = await ensureDataset(app.url, label, size);
    const days = benchDays();
    // Day buckets come from the nightly's daily_tool_stats, as on a deployment whose nightly ran every night: each
    // past day of the range without a complete run gets one now. (Only the last 7 had one when the nightly scenario did
    // not run first: the other 23 days were then summed from hourly rollups on every read, a state no project stays in.)
    const computed = await withPg(async (client) => {
      const { rows } = await client.query(
        `SELECT DISTINCT to_char(day, 'YYYY-MM-DD') AS day FROM daily_tool_stats WHERE project_id = $1 AND computed_at >= day + interval '1 day'`,
        [dataset.projectId],
      );
      return new Set(rows.map((row) => row.day));
    });
    const uncomputed = days.filter((day) => !computed.has(day));
    for (const day of uncomputed) await runNightly(app.url, dataset.apiKey, day);
    if (uncomputed.length > 0) log(`dashboard: ran the nightly for ${uncomputed.length} day(s) of the range that had no complete run`);
    const headers = projectHeaders(dataset.apiKey);
    const from = `${days[0]}T00:00:00Z`;
    const groups = await api(app.url, '/v1/tools/search_docs/error-groups', { headers });
    const groupId = (groups.json.items ?? groups.json.groups ?? groups.json)[0]?.id;
    const endpoints = {
      'stats/overview (30 d)': `/v1/stats/overview?from=${from}`,
      'stats/tools (30 d)': `/v1/stats/tools?from=${from}`,
      'tools/:name/stats?bucket=day (30 d)': `/v1/tools/search_docs/stats?bucket=day&from=${from}`,
      'tools/:name/stats?bucket=hour (default range)': '/v1/tools/search_docs/stats?bucket=hour',
      'tools/:name/error-groups': '/v1/tools/search_docs/error-groups',
      'error-groups/:id': groupId ? `/v1/error-groups/${groupId}` : null,
      recommendations: '/v1/recommendations',
    };
    const runs = {};
    for (const [name, path] of Object.entries(endpoints)) {
      if (!path) {
        runs[name] = null;
        continue;
      }
      const probe = await fetch(`${app.url}${path}`, { headers }).catch(() => null);
      if (!probe || probe.status === 404) {
        runs[name] = { missing: true, status: probe?.status ?? null };
        continue;
      }
      const bytes = (await probe.arrayBuffer()).byteLength;
      await load({ url: `${app.url}${path}`, connections: CONNECTIONS, durationS: 1, headers });
      const run = await load({ url: `${app.url}${path}`, connections: CONNECTIONS, durationS, headers });
      runs[name] = { ...run, bytes, status: probe.status };
      log(`dashboard ${name}: p95 ${run.p95Ms} ms, ${run.reqPerSec} req/s, ${bytes} B, errors ${run.errors}`);
    }
    const measured = Object.entries(runs).filter(([, r]) => r && !r.missing);
    const worst = measured.sort(([, a], [, b]) => b.p95Ms - a.p95Ms)[0];
    const missing = Object.entries(runs)
      .filter(([, r]) => !r || r.missing)
      .map(([k]) => k);
    return scenarioResult({
      value: worst?.[1].p95Ms ?? null,
      unit: 'ms p95 (slowest endpoint)',
      baseline: null,
      p50Ms: worst?.[1].p50Ms ?? null,
      p99Ms: worst?.[1].p99Ms ?? null,
      targetMet: measured.every(([, r]) => r.p95Ms < 100 && r.errors === 0) && missing.length === 0,
      notes:
        `${label} events, ${CONNECTIONS} connections x ${durationS} s per endpoint; slowest: ${worst?.[0]}. ` +
        measured.map(([k, r]) => `${k}: p95 ${r.p95Ms} ms`).join('; ') +
        (missing.length ? `. Missing: ${missing.join(', ')}` : '') +
        '. No baseline ratio (absolute target). Target: every endpoint p95 < 100 ms.',
      details: runs,
    });
  });
}
