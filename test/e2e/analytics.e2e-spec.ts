import { randomUUID } from 'node:crypto';
import { runNightly, waitForRun } from '../support/job-runs';
import { sendEvents } from '../support/send-events';
import { eventually, startTestApp, TestApp, TestResponse } from '../support/test-app';

const D1 = '2026-03-01';
const D2 = '2026-03-02';

/**
 * The whole loop on the default policies: mistakes -> nightly job -> warnings served to every caller as canaries ->
 * fewer mistakes with the new version -> the next nightly promotes each canary and measures it "helped".
 */
describe('nightly analytics and the feedback loop', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const send = (events: Array<Record<string, unknown>>) => sendEvents(t, events);

  const at = (day: string, i: number) => new Date(Date.parse(`${day}T08:00:00Z`) + i * 1000).toISOString();
  const factorialCall = (day: string, i: number, n: number, version: number) =>
    n <= 20
      ? {
          id: randomUUID(),
          tool: 'factorial',
          status: 'success',
          arguments: { n },
          result: 1,
          durationMs: 2,
          occurredAt: at(day, i),
          descriptionVersion: version,
        }
      : {
          id: randomUUID(),
          tool: 'factorial',
          status: 'error',
          arguments: { n },
          durationMs: 1,
          occurredAt: at(day, i),
          descriptionVersion: version,
          error: { type: 'OverflowError', message: `Factorial calculation overflow for n = ${n}` },
        };
  const primeCall = (day: string, i: number, isMistake: boolean, version: number) =>
    isMistake
      ? {
          id: randomUUID(),
          tool: 'prime_factorization',
          status: 'error',
          arguments: { numbers: [12, 15] },
          occurredAt: at(day, i),
          descriptionVersion: version,
          error: { type: 'ToolException', message: 'Tool execution failed' },
        }
      : {
          id: randomUUID(),
          tool: 'prime_factorization',
          status: 'success',
          arguments: { number: 12 + i },
          result: [2, 2, 3],
          occurredAt: at(day, i),
          descriptionVersion: version,
        };

  const description = async (tool: string) => (await t.request('GET', `/v1/tools/${tool}/description`)).body;

  it('registers the tools', async () => {
    const factorial = await t.request('PUT', '/v1/tools/factorial', {
      body: {
        // well described (issue 23's checker finds nothing), so every warning here is learned from the mistakes
        description: 'Compute n! for one non-negative integer n, e.g. {"n": 5}.',
        parameters: {
          type: 'object',
          properties: { n: { type: 'integer', minimum: 0, description: 'The integer whose factorial is computed.' } },
          required: ['n'],
        },
      },
    });
    expect(factorial.status).toBeLessThan(300);
    const prime = await t.request('PUT', '/v1/tools/prime_factorization', {
      body: {
        description: 'Perform prime factorization of a single integer, e.g. {"number": 360}.',
        parameters: {
          type: 'object',
          properties: { number: { type: 'integer', maximum: 1000000, description: 'The integer to factor.' } },
          required: ['number'],
          additionalProperties: false,
        },
      },
    });
    expect(prime.status).toBeLessThan(300);
    expect((await description('factorial')).version).toBe(1);
  });

  it('computes per-tool day stats from the rollups and learns warnings from the mistakes', async () => {
    const events = [];
    for (let i = 0; i < 63; i++) events.push(factorialCall(D1, i, i % 21, 1)); // 0..20 succeed
    for (const n of [21, 22, 25, 30, 50, 100, 21, 23, 40, 99]) events.push(factorialCall(D1, events.length, n, 1));
    for (let i = 0; i < 40; i++) events.push(primeCall(D1, i, i % 4 === 0, 1)); // 10 mistakes
    await send(events);

    const run = await runNightly(t, D1);
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ job: 'nightly', date: D1, status: 'succeeded', trigger: 'api' });
    expect(run.body.counts.applied).toBe(2);

    const { rows: stats } = await t.db.sql.query(
      `SELECT tool, calls, successes, errors, success_rate, errors_by_category, latency_p50_ms FROM daily_tool_stats WHERE day = $1 ORDER BY tool`,
      [D1],
    );
    expect(stats).toHaveLength(2);
    expect(stats[0]).toMatchObject({ tool: 'factorial', calls: 73, successes: 63, errors: 10, errors_by_category: { overflow: 10 } });
    expect(stats[0].success_rate).toBeCloseTo(63 / 73);
    expect(stats[0].latency_p50_ms).toBeLessThanOrEqual(2);
    expect(stats[1]).toMatchObject({ tool: 'prime_factorization', calls: 40, errors: 10, errors_by_category: { argument_mismatch: 10 } });

    const factorial = await description('factorial');
    expect(factorial.version).toBe(2);
    expect(factorial.description).toContain("'n' above 20 fails (overflow).");
    const prime = await description('prime_factorization');
    expect(prime.version).toBe(2);
    expect(prime.description).toContain("Do not pass 'numbers'. The parameter is 'number' (one integer); call this tool once per number.");
    expect(prime.warnings[0].evidence.count).toBe(10);

    const recommendations = await t.request('GET', '/v1/recommendations?status=applied');
    expect(recommendations.body.items.map((r: { kind: string }) => r.kind).sort()).toEqual(['learned_limit', 'wrong_argument_name']);
    // the served line states how many of the calls made since the mistake was first seen went wrong this way
    expect(prime.description).toContain('call this tool once per number. 10 of 40 recent calls failed this way.');
    expect(factorial.description).toContain("'n' above 20 fails (overflow). 10 of 73 recent calls failed this way.");
  });

  it('validates a value the schema allows but the learned limit does not as beyond_learned_limit, unless asked for the schema only', async () => {
    const validate = (args: unknown, query = '') =>
      t.request('POST', `/v1/tools/factorial/validate${query}`, { body: { arguments: args } });
    const beyond = await validate({ n: 25 });
    expect(beyond.status).toBe(200);
    expect(beyond.body).toEqual({
      valid: false,
      errors: [
        {
          kind: 'beyond_learned_limit',
          category: 'overflow',
          subtype: 'above_maximum',
          path: '/n',
          message: "'n' is 25; above 20 fails (overflow), learned from 10 failed calls",
          limit: { bound: 'upper', value: 20, isInclusive: false },
          evidenceCount: 10,
        },
      ],
      suggestion: null,
      checked: true,
      reason: null,
    });
    expect((await validate({ n: 20 })).body).toMatchObject({ valid: true, errors: [] });
    expect((await validate({ n: 25 }, '?checks=schema')).body).toMatchObject({ valid: true, errors: [] });
    expect((await validate({ n: 25 }, '?checks=all')).body.valid).toBe(false);
    expect((await validate({ n: -1 })).body.errors.map((e: { kind: string }) => e.kind)).toEqual(['schema']);
    const bad = await validate({ n: 25 }, '?checks=learned');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe('/query/checks');
  });

  it('gives the same result when a day is run again', async () => {
    const before = await t.db.sql.query(`SELECT tool, calls, successes, errors FROM daily_tool_stats WHERE day = $1 ORDER BY tool`, [D1]);
    const run = await runNightly(t, D1);
    expect(run.body.status).toBe('succeeded');
    expect(run.body.counts.applied).toBe(0);
    const after = await t.db.sql.query(`SELECT tool, calls, successes, errors FROM daily_tool_stats WHERE day = $1 ORDER BY tool`, [D1]);
    expect(after.rows).toEqual(before.rows);
    expect((await description('factorial')).version).toBe(2);
    const { rows } = await t.db.sql.query('SELECT count(*)::int AS n FROM recommendations');
    expect(rows[0].n).toBe(2);
  });

  it('promotes both canaries at the next nightly and proves the warnings helped once calls that saw them make the mistake less often', async () => {
    const canaries = async () => (await t.request('GET', '/v1/rollout/canaries')).body.items;
    expect((await canaries()).map((c: { tool: string; status: string }) => `${c.tool}:${c.status}`).sort()).toEqual([
      'factorial:running',
      'prime_factorization:running',
    ]);
    // 100 calls a side on D2 (with D1 as the previous side's baseline): each canary is decided at its first look. The
    // calls at v1 are those of agents that had not fetched the descriptions again.
    const events = [];
    for (let i = 0; i < 100; i++) events.push(factorialCall(D2, i, i < 2 ? 25 : i % 21, 2));
    for (let i = 0; i < 40; i++) events.push(factorialCall(D2, 100 + i, i < 15 ? 30 : i % 21, 1));
    for (let i = 0; i < 100; i++) events.push(primeCall(D2, 200 + i, i === 0, 2));
    for (let i = 0; i < 60; i++) events.push(primeCall(D2, 300 + i, i % 4 === 0, 1));
    await send(events);

    const run = await runNightly(t, D2);
    expect(run.body.status).toBe('succeeded');
    const decided = (await canaries()).map((c: { tool: string; status: string; decision: { look: number } }) => [
      c.tool,
      c.status,
      c.decision.look,
    ]);
    expect(decided.sort()).toEqual([
      ['factorial', 'promoted', 1],
      ['prime_factorization', 'promoted', 1],
    ]);
    // measured the night they were promoted
    expect(run.body.counts.effectsMeasured).toBe(2);

    const { body } = await t.request('GET', '/v1/recommendations?status=applied');
    const byKind = Object.fromEntries(body.items.map((r: { kind: string; effect: unknown }) => [r.kind, r.effect]));
    expect(byKind.learned_limit).toMatchObject({ verdict: 'helped', method: 'version' });
    expect(byKind.learned_limit.withWarning).toMatchObject({ calls: 100, mistakes: 2 });
    expect(byKind.learned_limit.withoutWarning).toMatchObject({ calls: 113, mistakes: 25 });
    expect(byKind.learned_limit.relativeChange).toBeLessThan(0);
    expect(byKind.wrong_argument_name).toMatchObject({ verdict: 'helped' });
  });

  it('lists every run, newest first', async () => {
    const runs = await t.request('GET', '/v1/jobs?limit=2');
    expect(runs.status).toBe(200);
    expect(runs.body.items.map((r: { date: string }) => r.date)).toEqual([D2, D1]);
    expect(runs.body.nextCursor).not.toBeNull();
    const rest = await t.request('GET', `/v1/jobs?cursor=${runs.body.nextCursor}`);
    expect(rest.body.items).toHaveLength(1);
  });

  it('queues a run (202, Location of the run), answers the same run to a second request while it waits, and a new one after', async () => {
    // a day before any event: its runs change nothing the tests after this one read
    const QUIET_DAY = '2026-02-20';
    const queue = t.app.get(QueueProducer).analytics;
    // paused, the worker takes nothing: both requests find the run still queued
    await queue.pause();
    let first: TestResponse, second: TestResponse;
    try {
      [first, second] = await Promise.all([1, 2].map(() => t.request('POST', `/v1/jobs/nightly?date=${QUIET_DAY}`)));
      expect(first.status).toBe(202);
      expect(first.headers.get('location')).toBe(`/v1/jobs/${first.body.id}`);
      expect(first.body).toMatchObject({ date: QUIET_DAY, trigger: 'api', status: 'queued', counts: null, finishedAt: null });
      expect(second.status).toBe(202);
      expect(second.body.id).toBe(first.body.id);
      expect((await t.request('GET', `/v1/jobs/${first.body.id}`)).body.status).toBe('queued');
      expect((await queue.getJobs(['waiting'])).map((job) => job.id)).toEqual([`nightly-run-${first.body.id}`]);
    } finally {
      await queue.resume();
    }
    expect((await waitForRun(t, first.body.id)).body).toMatchObject({ id: first.body.id, status: 'succeeded' });
    const again = await runNightly(t, QUIET_DAY);
    expect(again.body.status).toBe('succeeded');
    expect(again.body.id).not.toBe(first.body.id);
  });

  it('answers 404 for a run that is not one of this project', async () => {
    const [run] = (await t.request('GET', '/v1/jobs?limit=1')).body.items;
    const other = await t.createProject(`other-${randomUUID().slice(0, 6)}`);
    const hidden = await t.request('GET', `/v1/jobs/${run.id}`, { key: other.apiKey });
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe('not_found');
    expect((await t.request('GET', '/v1/jobs/not-a-run')).status).toBe(404);
  });

  it('answers 400 naming the date when it is not a day or is in the future', async () => {
    const bad = await t.request('POST', '/v1/jobs/nightly?date=2026-02-30');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe('/query/date');
    expect((await t.request('POST', '/v1/jobs/nightly?date=2999-01-01')).status).toBe(400);
  });

  it('never shows another project the runs or recommendations', async () => {
    const other = await t.createProject(`other-${randomUUID().slice(0, 6)}`);
    expect((await t.request('GET', '/v1/jobs', { key: other.apiKey })).body.items).toEqual([]);
    expect((await t.request('GET', '/v1/recommendations', { key: other.apiKey })).body.items).toEqual([]);
    const [mine] = (await t.request('GET', '/v1/recommendations')).body.items;
    expect((await t.request('POST', `/v1/recommendations/${mine.id}/dismiss`, { key: other.apiKey })).status).toBe(404);
  });

  it('lets a human dismiss an applied recommendation, removing its warning from the description', async () => {
    const [rec] = (await t.request('GET', '/v1/recommendations?tool=prime_factorization')).body.items;
    const dismissed = await t.request('POST', `/v1/recommendations/${rec.id}/dismiss`);
    expect(dismissed.body.status).toBe('dismissed');
    const prime = await eventually(async () => {
      const d = await description('prime_factorization');
      return d.version === 3 ? d : undefined;
    });
    expect(prime.description).not.toContain("Do not pass 'numbers'");
  });

  it('reads and validates the auto-apply policy', async () => {
    expect((await t.request('GET', '/v1/policy')).body).toMatchObject({ autoApply: true, minOccurrences: 5 });
    const bad = await t.request('PUT', '/v1/policy', { body: { autoApply: 'yes' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { path: string }) => d.path)).toContain('/autoApply');
    const policy = {
      autoApply: false,
      minOccurrences: 10,
      minShare: 0.2,
      autoApplyKinds: ['learned_limit'],
      autoRetire: false,
      warningTokenCap: 90,
      reviewMode: false,
    };
    expect((await t.request('PUT', '/v1/policy', { body: policy })).body).toEqual(policy);
    expect((await t.request('GET', '/v1/policy')).body).toEqual(policy);
  });
});

describe('scheduling the nightly job', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ROLES: 'api,worker,scheduler' });
  });
  afterAll(() => t.close());

  it('enqueues one job per night however many scheduler replicas fire, and a worker runs it for every project', async () => {
    const scheduler = t.app.get(NightlyScheduler);
    const now = new Date('2026-04-02T02:00:00Z');
    await Promise.all([scheduler.enqueueNightly(now), scheduler.enqueueNightly(now)]);
    const queue = t.app.get(QueueProducer);
    const run = await eventually(async () => {
      const { rows } = await t.db.sql.query(
        `SELECT status, to_char(day, 'YYYY-MM-DD') AS day FROM job_runs WHERE project_id = $1 AND trigger = 'schedule'`,
        [t.projectId],
      );
      return rows.length > 0 && rows[0].status === 'succeeded' ? rows : undefined;
    }, 20_000);
    expect(run).toHaveLength(1);
    expect(run[0].day).toBe('2026-04-01');
    const jobs = await queue.analytics.getJobs(['completed', 'active', 'waiting', 'delayed']);
    // beside it, the next occurrence of the recurring nightly-schedule job (NIGHTLY_CRON)
    expect(jobs.filter((j) => j.name === 'nightly-run').map((j) => j.id)).toEqual(['nightly-2026-04-01']);
  });

  it('refuses a second run of the same project while one holds the lock, and recovers when the holder dies', async () => {
    const lock = await t.app.get(AdvisoryLocks).tryAcquire(`toolcoach:nightly:${t.projectId}`);
    expect(lock).not.toBeNull();
    const busy = await t.request('POST', '/v1/jobs/nightly?date=2026-04-01');
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('job_running');
    // the holder's session ends without unlocking, as when its process is killed
    const { rows } = await t.db.sql.query(
      `SELECT pg_terminate_backend(pid) FROM pg_locks
       WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    expect(rows.length).toBeGreaterThan(0);
    const after = await eventually(async () => {
      const response = await t.request('POST', '/v1/jobs/nightly?date=2026-04-01');
      return response.status === 202 ? response : undefined;
    });
    expect((await waitForRun(t, after.body.id)).body.status).toBe('succeeded');
    await lock!.release();
  });
});

import { AdvisoryLocks } from '../../src/infra/locks/advisory-lock';
import { QueueProducer } from '../../src/infra/queue/queue.producer';
import { NightlyScheduler } from '../../src/analytics/nightly.scheduler';
