import { Queue } from 'bullmq';
import { randomBytes } from 'node:crypto';
import { formatDay, previousDay } from '../../src/analytics/analytics-day';
import { QueueName } from '../../src/infra/queue/queue.names';
import { anErrorEvent, anEvent } from '../factories/event.factory';
import { AppProcess, freePort, spawnApp } from '../support/app-process';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { eventually } from '../support/test-app';
import { REDIS_URL } from '../support/test-env';

/**
 * Issue 19: one deployment as four processes, as it runs past one machine: two `api` processes behind a round-robin
 * balancer and two `worker,scheduler` processes, on one database and one queue prefix. The load is accepted by both
 * APIs and written by both workers with nothing lost or counted twice, and the nightly job runs once although both
 * schedulers' one schedule enqueues it every second and two API processes are asked for the same run at once.
 */

const API_KEY = 'tc_multi_process_key';
const BATCHES = 200;
const EVENTS_PER_BATCH = 100;
/** Every tenth batch is sent again, to the other API process, as a client whose answer was lost would. */
const RESENT_EVERY = 10;
const SENDERS = 4;
const ERROR_EVERY = 10;

jest.setTimeout(120_000);

describe('two api and two worker,scheduler processes on one deployment', () => {
  let db: TestDatabase;
  const queuePrefix = `tc-test-${randomBytes(4).toString('hex')}`;
  const processes: AppProcess[] = [];
  const apiUrls: string[] = [];
  const schedulers: AppProcess[] = [];
  let projectId: string;
  let analytics: Queue;
  let eventsQueue: Queue;

  beforeAll(async () => {
    db = await createTestDatabase();
    const env = {
      DATABASE_URL: db.url,
      REDIS_URL,
      QUEUE_PREFIX: queuePrefix,
      MIGRATE_ON_START: 'false',
      RATE_LIMIT_REQUESTS: '0',
      TOOLCOACH_DEV_KEY: API_KEY,
      LOG_LEVEL: 'info',
      // every second: the one schedule both schedulers upsert enqueues yesterday's nightly job again and again
      NIGHTLY_CRON: '* * * * * *',
    };
    analytics = new Queue(QueueName.Analytics, { connection: { url: REDIS_URL }, prefix: queuePrefix });
    eventsQueue = new Queue(QueueName.Events, { connection: { url: REDIS_URL }, prefix: queuePrefix });
    // four processes booting at once on two shared cores: each gets a minute to come up
    const start = async (roles: string) => {
      const port = roles === 'api' ? await freePort() : null;
      const app = spawnApp({ ...env, ROLES: roles, ...(port === null ? {} : { PORT: String(port), HOST: '127.0.0.1' }) });
      processes.push(app);
      if (port === null) schedulers.push(app);
      else apiUrls.push(`http://127.0.0.1:${port}`);
      return app;
    };
    await Promise.all([start('api'), start('api'), start('worker,scheduler'), start('worker,scheduler')]);
    const isUp = async () => {
      const answers = await Promise.all(
        apiUrls.map((url) =>
          fetch(`${url}/healthz`).then(
            (r) => r.ok,
            () => false,
          ),
        ),
      );
      // a worker is up once its BullMQ worker is registered on the events queue
      return (answers.every(Boolean) && (await eventsQueue.getWorkersCount()) === 2) || undefined;
    };
    await eventually(isUp, 60_000, 200).catch((error: Error) => {
      throw new Error(`${error.message}; the processes printed:\n${processes.map((app) => app.output().slice(-1000)).join('\n---\n')}`);
    });
    projectId = (await db.sql.query<{ id: string }>("SELECT id FROM projects WHERE name = 'default'")).rows[0].id;
  }, 90_000);

  afterAll(async () => {
    await Promise.all(processes.map(stopProcess));
    await analytics?.close();
    await eventsQueue?.close();
    await db?.drop();
  });

  it('stores every event sent round-robin to both APIs exactly once, re-sent batches included, and rolls each up once', async () => {
    const occurredAt = new Date().toISOString();
    const batches = Array.from({ length: BATCHES }, (_, b) =>
      Array.from({ length: EVENTS_PER_BATCH }, (_, i) =>
        i % ERROR_EVERY === 0
          ? anErrorEvent('Missing required argument: city', { id: `mp-${b}-${i}`, tool: `tool_${i % 4}`, occurredAt })
          : anEvent({ id: `mp-${b}-${i}`, tool: `tool_${i % 4}`, occurredAt }),
      ),
    );
    // batch b goes to API b % 2; its re-send, right after, to the other one
    const sends = batches.flatMap((events, b) => {
      const first = { events, api: b % 2 };
      return b % RESENT_EVERY === 0 ? [first, { events, api: (b + 1) % 2 }] : [first];
    });
    const startedAt = Date.now();
    let next = 0;
    const acceptedByApi = [0, 0];
    const sender = async () => {
      while (next < sends.length) {
        const { events, api } = sends[next++];
        const response = await fetch(`${apiUrls[api]}/v1/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ events }),
        });
        expect(response.status).toBe(202);
        acceptedByApi[api] += ((await response.json()) as { accepted: number }).accepted;
      }
    };
    await Promise.all(Array.from({ length: SENDERS }, sender));
    const total = BATCHES * EVENTS_PER_BATCH;
    const resent = (BATCHES / RESENT_EVERY) * EVENTS_PER_BATCH;
    const sentByApi = [0, 1].map((api) => sends.filter((send) => send.api === api).length * EVENTS_PER_BATCH);
    expect(acceptedByApi).toEqual(sentByApi);
    expect(sentByApi[0] + sentByApi[1]).toBe(total + resent);

    await eventually(async () => (await countStored()) === total || undefined, 60_000, 200);
    await eventually(async () => {
      const counts = await eventsQueue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'failed');
      return Object.values(counts).every((n) => n === 0) || undefined;
    }, 30_000);
    const elapsedMs = Date.now() - startedAt;

    const { rows } = await db.sql.query(
      `SELECT count(*)::int AS stored, count(DISTINCT id)::int AS distinct_ids,
              count(*) FILTER (WHERE status = 'error')::int AS errors
       FROM events WHERE project_id = $1`,
      [projectId],
    );
    const rollups = await db.sql.query(
      `SELECT (SELECT sum(calls)::int FROM hourly_rollups WHERE project_id = $1) AS calls,
              (SELECT sum(errors)::int FROM hourly_rollups WHERE project_id = $1) AS errors,
              (SELECT sum(count)::int FROM hourly_error_rollups WHERE project_id = $1) AS error_rollup,
              (SELECT sum(count)::int FROM error_groups WHERE project_id = $1) AS grouped`,
      [projectId],
    );
    const errors = total / ERROR_EVERY;
    expect(rows[0]).toEqual({ stored: total, distinct_ids: total, errors });
    expect(rollups.rows[0]).toEqual({ calls: total, errors, error_rollup: errors, grouped: errors });
    const deadLetters = await fetch(`${apiUrls[0]}/v1/admin/dead-letters?limit=10`, { headers: { authorization: `Bearer ${API_KEY}` } });
    expect(((await deadLetters.json()) as { total: number }).total).toBe(0);
    // both worker processes took jobs from the one queue
    expect(await eventsQueue.getWorkersCount()).toBe(2);
    console.log(`multi-process: ${total + resent} events (${resent} re-sent) stored once in ${elapsedMs} ms`);
  });

  it('runs the scheduled nightly job once although its schedule enqueues it every second', async () => {
    const day = formatDay(previousDay(new Date()));
    const scheduledRuns = async () =>
      (
        await db.sql.query<{ status: string }>(
          "SELECT status FROM job_runs WHERE project_id = $1 AND day = $2 AND trigger = 'schedule' ORDER BY started_at",
          [projectId, day],
        )
      ).rows.map((row) => row.status);
    await eventually(async () => ((await scheduledRuns()).includes('succeeded') ? true : undefined), 30_000, 200);
    // the barrier: the schedule (one between both schedulers) has enqueued the same day four times more since then
    const enqueuedSoFar = enqueueLines(schedulers, day);
    await eventually(async () => enqueueLines(schedulers, day) >= enqueuedSoFar + 4 || undefined, 20_000);

    expect(await analytics.getJobState(`nightly-${day}`)).toBe('completed');
    expect((await analytics.getJobSchedulers()).map((scheduler) => scheduler.key)).toEqual(['nightly-schedule']);
    expect(await analytics.getJobCounts('failed')).toEqual({ failed: 0 });
    expect(await scheduledRuns()).toEqual(['succeeded']);
  });

  it('answers both API processes asked for the same nightly run at once with one run, run once', async () => {
    const day = formatDay(previousDay(previousDay(new Date())));
    const asked = await Promise.all(
      apiUrls.map(async (url) => {
        const response = await fetch(`${url}/v1/jobs/nightly?date=${day}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${API_KEY}` },
        });
        return { status: response.status, body: (await response.json()) as { id: string } };
      }),
    );
    expect(asked.map((answer) => answer.status)).toEqual([202, 202]);
    expect(asked[1].body.id).toBe(asked[0].body.id);
    const runs = async () =>
      (
        await db.sql.query<{ status: string }>("SELECT status FROM job_runs WHERE project_id = $1 AND day = $2 AND trigger = 'api'", [
          projectId,
          day,
        ])
      ).rows.map((row) => row.status);
    await eventually(async () => ((await runs()).includes('succeeded') ? true : undefined), 30_000, 200);
    expect(await runs()).toEqual(['succeeded']);
    // the run's row is written inside the job; BullMQ marks the job completed just after, so wait for that too
    const jobState = () => analytics.getJobState(`nightly-run-${asked[0].body.id}`);
    await eventually(async () => ((await jobState()) === 'completed' ? true : undefined), 30_000, 200);
    expect(await runs()).toEqual(['succeeded']);
  });

  async function countStored(): Promise<number> {
    const { rows } = await db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE project_id = $1', [projectId]);
    return rows[0].n;
  }
});

/** How often the processes' logs say they enqueued `day`'s nightly job (whichever worker ran the schedule's job). */
function enqueueLines(processes: AppProcess[], day: string): number {
  return processes
    .flatMap((process) => process.output().split('\n'))
    .filter((line) => line.includes('nightly job enqueued') && line.includes(day)).length;
}

/** SIGTERM, as an orchestrator stops a process; SIGKILL when it has not exited after the shutdown timeout and more. */
async function stopProcess(app: AppProcess) {
  if (app.child.exitCode !== null || app.child.signalCode !== null) return;
  app.child.kill('SIGTERM');
  const killer = setTimeout(() => app.child.kill('SIGKILL'), 20_000);
  await app.exited;
  clearTimeout(killer);
}
