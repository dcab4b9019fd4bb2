// A large, realistic history for the nightly and dashboard scenarios: N events over the 30 UTC days before today,
// loaded with COPY (psql, FORMAT csv) into `events` already categorized, then the worker's rollup tables built from
// them with set-based SQL in the shapes src/categorize/batch-aggregates.ts and categorize.repository.ts produce.
// This stands in for the worker: pushing 10M events through it would take most of an hour on 2 cores, and the
// nightly job and the dashboard only ever read these tables.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { makeEvent, random } from './events.mjs';
import { api, log, settings, withPg } from './harness.mjs';
import { registerBenchTools } from './registry-setup.mjs';

export const DAYS = 30;
const DAY_MS = 86_400_000;
// src/diagnosis/latency-buckets.ts
const LATENCY_BUCKET_BOUNDS_MS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000];

/** What the worker's categorizer concludes for each error shape events.mjs produces (checked against the real worker). */
const DIAGNOSES = {
  TypeError: { category: 'argument_mismatch', subtype: 'unknown_argument', argumentPath: '/numbers', wrongArgument: 'numbers' },
  ValidationError: { category: 'out_of_range', subtype: 'above_maximum', argumentPath: '/limit', offendingValue: 120 },
  KeyError: { category: 'argument_mismatch', subtype: 'missing_argument', argumentPath: '/query' },
  ToolNotFound: { category: 'unknown_tool', subtype: null, argumentPath: null },
  TimeoutError: { category: 'timeout', subtype: null, argumentPath: null },
  OverflowError: { category: 'overflow', subtype: null, argumentPath: null },
  RuntimeError: { category: 'runtime_error', subtype: null, argumentPath: null },
};

// same layout as src/categorize/error-group-id.ts
function errorGroupIdFor(projectId, fingerprint) {
  const hex = createHash('sha1').update(`${projectId}:${fingerprint}`).digest('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const COLUMNS = [
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
  'stored_at',
  'agent',
  'model',
  'framework',
  'session_id',
  'description_version',
  'category',
  'subtype',
  'argument_path',
  'fingerprint',
  'error_group_id',
  'evidence',
  'wrong_argument',
  'offending_value',
];

const csv = (value) => (value === null || value === undefined ? '' : `"${String(value).replaceAll('"', '""')}"`);

// Traffic follows the working day: hour h of the UTC day gets weight HOUR_WEIGHTS[h].
const HOUR_WEIGHTS = Array.from({ length: 24 }, (_, h) => 0.3 + Math.max(0, Math.sin(((h - 6) / 24) * 2 * Math.PI)));
const HOUR_CUMULATIVE = HOUR_WEIGHTS.map(
  (
    (sum) => (w) =>
      (sum += w)
  )(0),
).map((c, _, all) => c / all[all.length - 1]);

export function benchDays(now = new Date()) {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: DAYS }, (_, i) => new Date(today - (DAYS - i) * DAY_MS).toISOString().slice(0, 10));
}

async function copyEvents(projectId, count) {
  const r = random(count % 9973);
  const firstDay = Date.parse(benchDays()[0]);
  const fingerprints = new Map();
  const psql = spawn(
    'psql',
    [settings.databaseUrl, '-v', 'ON_ERROR_STOP=1', '-c', `COPY events (${COLUMNS.join(', ')}) FROM STDIN WITH (FORMAT csv)`],
    { stdio: ['pipe', 'ignore', 'pipe'] },
  );
  let stderr = '';
  psql.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => psql.on('exit', resolve));
  const write = (chunk) => (psql.stdin.write(chunk) ? Promise.resolve() : new Promise((resolve) => psql.stdin.once('drain', resolve)));
  const CHUNK = 5000;
  for (let start = 0; start < count; start += CHUNK) {
    let lines = '';
    for (let i = start; i < Math.min(count, start + CHUNK); i++) {
      // days grow slightly busier towards the present
      const day = Math.min(DAYS - 1, Math.floor(Math.sqrt(r()) * DAYS));
      const hour = HOUR_CUMULATIVE.findIndex((c) => r() <= c);
      const at = new Date(firstDay + day * DAY_MS + hour * 3_600_000 + Math.floor(r() * 3_600_000));
      const e = makeEvent(r, `h${i}`);
      let diagnosis = null;
      if (e.error) {
        diagnosis = DIAGNOSES[e.error.type];
        if (e.error.type === 'OverflowError') {
          // the worker blames the first numeric argument, with its value
          const numeric = Object.entries(e.arguments).find(([, value]) => typeof value === 'number');
          if (numeric) diagnosis = { ...diagnosis, argumentPath: `/${numeric[0]}`, offendingValue: numeric[1] };
        }
        const template = e.error.message.replace(/[0-9a-f]{6,}|\d+/g, '<n>');
        const key = `${e.tool}\u0000${diagnosis.category}\u0000${diagnosis.subtype}\u0000${diagnosis.argumentPath}\u0000${template}`;
        if (!fingerprints.has(key)) {
          const fingerprint = createHash('sha1').update(key).digest('hex');
          fingerprints.set(key, { fingerprint, groupId: errorGroupIdFor(projectId, fingerprint) });
        }
        diagnosis = { ...diagnosis, ...fingerprints.get(key) };
      }
      const iso = at.toISOString();
      lines +=
        [
          projectId,
          e.id,
          e.tool,
          e.status,
          JSON.stringify(e.arguments),
          e.result ? JSON.stringify(e.result) : null,
          e.error?.type,
          e.error?.message,
          e.durationMs,
          iso,
          iso,
          iso,
          e.agent,
          e.model,
          e.framework,
          e.sessionId,
          r() < 0.2 ? null : e.descriptionVersion,
          diagnosis?.category,
          diagnosis?.subtype,
          diagnosis?.argumentPath,
          diagnosis?.fingerprint,
          diagnosis?.groupId,
          diagnosis ? 'message' : null,
          diagnosis?.wrongArgument,
          diagnosis?.offendingValue,
        ]
          .map(csv)
          .join(',') + '\n';
    }
    await write(lines);
    if (start % 1_000_000 === 0 && start > 0) log(`  copied ${start / 1e6}M events`);
  }
  psql.stdin.end();
  const code = await exited;
  if (code !== 0) throw new Error(`COPY failed (${code}): ${stderr}`);
}

const bucketCounts = LATENCY_BUCKET_BOUNDS_MS.map((bound, i) =>
  i === 0
    ? `count(*) FILTER (WHERE duration_ms <= ${bound})`
    : `count(*) FILTER (WHERE duration_ms > ${LATENCY_BUCKET_BOUNDS_MS[i - 1]} AND duration_ms <= ${bound})`,
);
bucketCounts.push(`count(*) FILTER (WHERE duration_ms > ${LATENCY_BUCKET_BOUNDS_MS.at(-1)})`);

const IS_CATEGORIZED_ERROR = `status = 'error' AND category IS NOT NULL`;

// Set-based equivalents of the worker's per-batch upserts (src/categorize/categorize.repository.ts).
const ROLLUP_SQL = [
  `INSERT INTO hourly_rollups (project_id, tool, hour, calls, errors, latency_count, latency_sum_ms, latency_buckets)
   SELECT project_id, tool, date_trunc('hour', occurred_at), count(*), count(*) FILTER (WHERE ${IS_CATEGORIZED_ERROR}),
     count(duration_ms), coalesce(sum(duration_ms), 0), ARRAY[${bucketCounts.join(', ')}]::int[]
   FROM events WHERE project_id = $1 GROUP BY project_id, tool, date_trunc('hour', occurred_at)`,
  `INSERT INTO hourly_error_rollups (project_id, tool, hour, category, subtype, count)
   SELECT project_id, tool, date_trunc('hour', occurred_at), category, coalesce(subtype, ''), count(*)
   FROM events WHERE project_id = $1 AND ${IS_CATEGORIZED_ERROR}
   GROUP BY project_id, tool, date_trunc('hour', occurred_at), category, coalesce(subtype, '')`,
  `INSERT INTO error_groups (id, project_id, fingerprint, tool, category, subtype, argument_path, message_template, count,
     first_seen, last_seen, sample_event_ids, intended_argument, array_for_scalar_count, min_offending_value, max_offending_value)
   SELECT error_group_id, project_id, fingerprint, min(tool), min(category), min(subtype), min(argument_path),
     min(error_message), count(*), min(occurred_at), max(occurred_at), (array_agg(id))[1:5], min(intended_argument),
     count(*) FILTER (WHERE array_for_scalar), min(offending_value), max(offending_value)
   FROM events WHERE project_id = $1 AND fingerprint IS NOT NULL GROUP BY error_group_id, project_id, fingerprint`,
  `INSERT INTO argument_value_ranges (project_id, tool, argument_path, success_count, min_value, max_value)
   SELECT e.project_id, e.tool, '/' || replace(replace(a.key, '~', '~0'), '/', '~1'), count(*), min(a.value::float8), max(a.value::float8)
   FROM events e, jsonb_each(CASE WHEN jsonb_typeof(e.arguments) = 'object' THEN e.arguments ELSE '{}' END) AS a(key, value)
   WHERE e.project_id = $1 AND e.status = 'success' AND jsonb_typeof(a.value) = 'number'
   GROUP BY e.project_id, e.tool, a.key`,
  `INSERT INTO daily_version_rollups (project_id, tool, day, description_version, calls, errors)
   SELECT project_id, tool, (occurred_at AT TIME ZONE 'UTC')::date, coalesce(description_version, 0), count(*),
     count(*) FILTER (WHERE ${IS_CATEGORIZED_ERROR})
   FROM events WHERE project_id = $1 GROUP BY 1, 2, 3, 4`,
  `INSERT INTO daily_mistake_rollups (project_id, tool, day, description_version, category, subtype, argument_path, count)
   SELECT project_id, tool, (occurred_at AT TIME ZONE 'UTC')::date, coalesce(description_version, 0), category,
     coalesce(subtype, ''), coalesce(argument_path, ''), count(*)
   FROM events WHERE project_id = $1 AND ${IS_CATEGORIZED_ERROR} GROUP BY 1, 2, 3, 4, 5, 6, 7`,
];

/**
 * A project `bench-<label>` holding `count` events and the rollups the worker would have written for them, with its
 * own API key and the bench tools registered. Reused when it already exists in the bench database.
 */
export async function ensureDataset(url, label, count) {
  const name = `bench-${label}`;
  const apiKey = `tc_bench_${label}_key`;
  const existing = await withPg(async (client) => {
    const { rows } = await client.query(
      `SELECT p.id, (SELECT count(*) FROM events e WHERE e.project_id = p.id)::bigint AS n FROM projects p WHERE p.name = $1`,
      [name],
    );
    return rows[0];
  });
  if (existing && Number(existing.n) === count) return { projectId: existing.id, apiKey, reused: true };
  if (existing) throw new Error(`project ${name} holds ${existing.n} events, not ${count}: drop the bench database`);

  const projectId = await withPg(async (client) => {
    const { rows } = await client.query(`INSERT INTO projects (name) VALUES ($1) RETURNING id`, [name]);
    await client.query(
      `INSERT INTO api_keys (project_id, key_hash, key_prefix, name) VALUES ($1, encode(sha256($2::text::bytea), 'hex'), left($2::text, 12), 'bench')`,
      [rows[0].id, apiKey],
    );
    return rows[0].id;
  });
  await registerBenchTools(url, { authorization: `Bearer ${apiKey}` });
  const timings = {};
  let started = Date.now();
  await copyEvents(projectId, count);
  timings.copyS = (Date.now() - started) / 1000;
  log(`dataset ${name}: COPY ${count} events in ${timings.copyS} s (${Math.round(count / timings.copyS)} rows/s)`);
  started = Date.now();
  await withPg(async (client) => {
    await client.query(`SET TimeZone = 'UTC'`);
    await client.query(`SET work_mem = '256MB'`);
    for (const sql of ROLLUP_SQL) await client.query(sql, [projectId]);
    await client.query('ANALYZE');
  });
  timings.rollupsS = (Date.now() - started) / 1000;
  log(`dataset ${name}: rollups in ${timings.rollupsS} s`);
  return { projectId, apiKey, reused: false, timings };
}

export const projectHeaders = (apiKey, extra = {}) => ({ authorization: `Bearer ${apiKey}`, ...extra });

/** POST /v1/jobs/nightly?date= for the dataset's project, then GET /v1/jobs/:id until it has an outcome; returns seconds and the run. */
export async function runNightly(url, apiKey, day) {
  const started = process.hrtime.bigint();
  let { json } = await api(url, `/v1/jobs/nightly?date=${day}`, { method: 'POST', headers: projectHeaders(apiKey) });
  // the run is queued for the worker; polled every 50 ms, which bounds what the timing adds
  const deadline = Date.now() + 30 * 60_000;
  while (json && ['queued', 'running'].includes(json.status)) {
    if (Date.now() > deadline) throw new Error(`nightly run of ${day} did not finish within 30 min: ${JSON.stringify(json)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    ({ json } = await api(url, `/v1/jobs/${json.id}`, { headers: projectHeaders(apiKey) }));
  }
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, run: json };
}
