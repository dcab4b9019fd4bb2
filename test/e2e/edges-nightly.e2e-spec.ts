import { Client } from 'pg';
import { Logger } from 'pino';
import { NightlyService } from '../../src/analytics/nightly.service';
import { JobName } from '../../src/infra/queue/queue.names';
import { QueueProducer } from '../../src/infra/queue/queue.producer';
import { runNightly, waitForRun } from '../support/job-runs';
import { startTestApp, TestApp } from '../support/test-app';

// Issue 13, finding 5: a nightly run that fails never leaves its project locked, a day Postgres cannot store is a 400,
// and the scheduled run never skips a project without a trace.

const DAY_MS = 86_400_000;
const daysAgo = (n: number) => new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - n * DAY_MS).toISOString().slice(0, 10);

describe('finding 5: the nightly job', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it.each([['0000-01-01'], ['1969-12-31'], ['0001-01-01']])(
    'answers 400 for date=%s, and the next run of the project is not locked out',
    async (date) => {
      const refused = await t.request('POST', `/v1/jobs/nightly?date=${date}`);
      expect(refused.status).toBe(400);
      expect(refused.body.error.details).toEqual([{ path: '/query/date', message: 'must be 1970-01-01 or later' }]);
      const next = await runNightly(t);
      expect(next.status).toBe(200);
      expect(next.body.status).toBe('succeeded');
    },
  );

  it('frees the project lock when a run fails right after taking it, and records the failure', async () => {
    const failingDay = daysAgo(3);
    // the worker's first write once it holds the lock is marking the queued run running: refuse that one
    await t.db.sql.query(`
      CREATE FUNCTION refuse_one_day() RETURNS trigger AS $$
      BEGIN
        IF NEW.day = DATE '${failingDay}' AND NEW.status = 'running' THEN RAISE EXCEPTION 'injected failure for %', NEW.day; END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql;
      CREATE TRIGGER refuse_one_day BEFORE UPDATE ON job_runs FOR EACH ROW EXECUTE FUNCTION refuse_one_day();`);
    try {
      const failed = await runNightly(t, failingDay);
      expect(failed.body).toMatchObject({ date: failingDay, status: 'failed', error: expect.stringContaining('injected failure') });
      const next = await runNightly(t, daysAgo(2));
      expect(next.status).toBe(200);
      expect(next.body).toMatchObject({ date: daysAgo(2), status: 'succeeded' });
    } finally {
      await t.db.sql.query('DROP TRIGGER refuse_one_day ON job_runs; DROP FUNCTION refuse_one_day();');
    }
  });

  it('records a skipped run and logs an error naming the project when another run holds its lock all along', async () => {
    const holder = new Client({ connectionString: t.db.url });
    await holder.connect();
    const nightly = t.app.get(NightlyService);
    const logger = (nightly as unknown as { logger: Logger }).logger;
    const errors = jest.spyOn(logger, 'error');
    try {
      await holder.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`toolcoach:nightly:${t.projectId}`]);
      expect((await t.request('POST', '/v1/jobs/nightly')).status).toBe(409);
      await nightly.runForAllProjects(new Date(`${daysAgo(1)}T00:00:00.000Z`), 'schedule', 300);
      const runs = await t.request('GET', '/v1/jobs');
      expect(runs.body.items[0]).toMatchObject({
        date: daysAgo(1),
        trigger: 'schedule',
        status: 'skipped',
        error: expect.stringMatching(/held its lock/),
      });
      expect(errors).toHaveBeenCalledWith(
        expect.objectContaining({ projectId: t.projectId, trigger: 'schedule' }),
        expect.stringMatching(/skipped/),
      );
    } finally {
      errors.mockRestore();
      await holder.end();
    }
    expect((await runNightly(t)).body.status).toBe('succeeded');
  });

  // A queued run whose job the queue fails for good outside the run's own bookkeeping must still get an outcome; the
  // payloads below are ones a worker can never run (an older or hand-written job), standing in for a job that stalled.
  it.each([
    ['a day that is not on the calendar', (runId: string, projectId: string) => ({ projectId, runId, day: '2026-02-30' })],
    ['a payload without its day', (runId: string, projectId: string) => ({ projectId, runId })],
    ['a day of another shape', (runId: string, projectId: string) => ({ projectId, runId, day: 'yesterday' })],
  ])('records a queued run failed when the queue gives up on its job (%s)', async (_case, payloadOf) => {
    const { rows } = await t.db.sql.query<{ id: string }>(
      `INSERT INTO job_runs (id, project_id, job, day, trigger, status) VALUES (gen_random_uuid(), $1, 'nightly', $2, 'api', 'queued') RETURNING id`,
      [t.projectId, daysAgo(5)],
    );
    const runId = rows[0].id;
    await t.app.get(QueueProducer).analytics.add(JobName.NightlyProjectRun, payloadOf(runId, t.projectId), { attempts: 1 });
    const run = await waitForRun(t, runId);
    expect(run.body).toMatchObject({ id: runId, status: 'failed', error: expect.stringContaining('the queue gave up on this run') });
    expect(run.body.finishedAt).not.toBeNull();
  });
});
