import { randomUUID } from 'node:crypto';
import { spawnApp } from '../support/app-process';
import { eventually, startTestApp, TestApp } from '../support/test-app';

const BATCHES = 30;
const EVENTS_PER_BATCH = 1000;
const TOTAL = BATCHES * EVENTS_PER_BATCH;

describe('a worker killed with SIGKILL mid-batch', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ROLES: 'api' });
  });
  afterAll(() => t.close());

  const count = async (sql: string) => Number((await t.db.sql.query(sql)).rows[0].n);

  it('loses nothing and stores or counts nothing twice once another worker takes over', async () => {
    let errors = 0;
    for (let b = 0; b < BATCHES; b++) {
      const events = Array.from({ length: EVENTS_PER_BATCH }, (_, i) => {
        const isError = i % 5 === 0;
        if (isError) errors += 1;
        return isError
          ? { id: randomUUID(), tool: `tool_${i % 7}`, status: 'error', error: { message: `Value ${i} out of range` }, durationMs: i % 300 }
          : { id: randomUUID(), tool: `tool_${i % 7}`, status: 'success', durationMs: i % 300 };
      });
      const response = await t.request('POST', '/v1/events', { body: { events } });
      expect(response.status).toBe(202);
    }

    const workerEnv = {
      DATABASE_URL: t.db.url,
      REDIS_URL: t.config.redisUrl,
      QUEUE_PREFIX: t.config.queuePrefix,
      ROLES: 'worker',
      MIGRATE_ON_START: 'false',
      WORKER_LOCK_DURATION_MS: '1500',
    };
    const first = spawnApp(workerEnv);
    const storedBeforeKill = await eventually(
      async () => {
        const n = await count('SELECT count(*) AS n FROM events');
        return n >= EVENTS_PER_BATCH * 3 ? n : undefined;
      },
      60_000,
      5,
    );
    first.child.kill('SIGKILL');
    await first.exited;
    expect(storedBeforeKill).toBeLessThan(TOTAL);

    const second = spawnApp(workerEnv);
    try {
      await eventually(async () => ((await count('SELECT count(*) AS n FROM events')) === TOTAL ? true : undefined), 90_000, 100);
      // let any batch still in flight (a retried duplicate) finish before counting aggregates
      await eventually(async () => ((await t.app.get(QueueProducerRef).events.getActiveCount()) === 0 ? true : undefined));
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
    expect(await count('SELECT count(*) AS n FROM events')).toBe(TOTAL);
    expect(await count('SELECT sum(calls) AS n FROM hourly_rollups')).toBe(TOTAL);
    expect(await count('SELECT sum(errors) AS n FROM hourly_rollups')).toBe(errors);
    expect(await count('SELECT sum(count) AS n FROM error_groups')).toBe(errors);
    expect(await count('SELECT sum(count) AS n FROM hourly_error_rollups')).toBe(errors);
  }, 180_000);
});

// imported late to keep the test's story at the top
import { QueueProducer as QueueProducerRef } from '../../src/infra/queue/queue.producer';
