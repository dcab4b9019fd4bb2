// Scenario 5: the nightly job at 1M and 10M events (30 days, skewed tools and errors; see lib/dataset.mjs for how the
// history is made). Times POST /v1/jobs/nightly for the last day, then a 30-day backfill (one call per day, oldest
// first). The job reads rollups only, so its time must not grow with the number of events. For reference, the same
// day's per-tool stats computed straight from `events` (what the rollups avoid) are timed too.
import { benchDays, ensureDataset, runNightly } from '../lib/dataset.mjs';
import { log, scenarioResult, withPg, withToolcoach } from '../lib/harness.mjs';

export const NIGHTLY_SIZES = (process.env.BENCH_NIGHTLY_SIZES ?? '1000000,10000000').split(',').map(Number);
export const sizeLabel = (n) => (n >= 1e6 ? `${n / 1e6}m` : `${n / 1e3}k`);

async function rawScanSeconds(projectId, day) {
  return withPg(async (client) => {
    const started = process.hrtime.bigint();
    await client.query(
      `SELECT tool, count(*), count(*) FILTER (WHERE status = 'error'),
         percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms), percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms)
       FROM events WHERE project_id = $1 AND occurred_at >= $2::date AND occurred_at < $2::date + 1 GROUP BY tool`,
      [projectId, day],
    );
    return Number(process.hrtime.bigint() - started) / 1e9;
  });
}

export default async function nightly() {
  const days = benchDays();
  const lastDay = days.at(-1);
  // the API queues each run and a worker runs it, so both roles
  return withToolcoach({ roles: 'api,worker' }, async (app) => {
    const bySize = {};
    for (const size of NIGHTLY_SIZES) {
      const label = sizeLabel(size);
      const dataset = await ensureDataset(app.url, label, size);
      const rawScanS = await rawScanSeconds(dataset.projectId, lastDay);
      const coldDay = await runNightly(app.url, dataset.apiKey, days[0]); // first call of the process: JIT and pools warm up
      const oneDay = await runNightly(app.url, dataset.apiKey, lastDay);
      log(`nightly ${label}: one day ${oneDay.seconds.toFixed(2)} s (${oneDay.run.status}); raw scan of that day ${rawScanS.toFixed(2)} s`);
      const perDay = [];
      for (const day of days) perDay.push((await runNightly(app.url, dataset.apiKey, day)).seconds);
      const backfillS = perDay.reduce((a, b) => a + b, 0);
      log(`nightly ${label}: 30-day backfill ${backfillS.toFixed(2)} s (slowest day ${Math.max(...perDay).toFixed(2)} s)`);
      bySize[label] = {
        events: size,
        oneDayS: oneDay.seconds,
        backfillS,
        slowestDayS: Math.max(...perDay),
        rawScanS,
        firstCallS: coldDay.seconds,
        run: oneDay.run,
        dataset: dataset.timings ?? 'reused',
      };
    }
    const labels = Object.keys(bySize);
    const small = bySize[labels[0]];
    const large = bySize[labels.at(-1)];
    const growth = large.oneDayS / small.oneDayS;
    return scenarioResult({
      value: large.oneDayS,
      unit: `s (one day at ${labels.at(-1)} events)`,
      baseline: null,
      p50Ms: null,
      p99Ms: null,
      targetMet: large.oneDayS < 5 && growth < 2,
      notes:
        labels
          .map(
            (l) =>
              `${l}: one day ${bySize[l].oneDayS.toFixed(2)} s, 30-day backfill ${bySize[l].backfillS.toFixed(1)} s, raw per-tool scan of one day from events ${bySize[l].rawScanS.toFixed(2)} s`,
          )
          .join('; ') +
        `. One-day time ${labels.at(-1)} / ${labels[0]} = ${growth.toFixed(2)} for ${(large.events / small.events).toFixed(0)}x the events. ` +
        'History made with COPY + set-based rollups standing in for the worker (bench/lib/dataset.mjs). No baseline ratio: lower is better. Target: one day < 5 s at 10M and flat in event count.',
      details: bySize,
    });
  });
}
