import { randomBytes } from 'node:crypto';
import { AppProcess, startListeningAppProcess } from '../support/app-process';
import { OwnRedis, startOwnRedis } from '../support/redis-server';
import { eventually } from '../support/test-app';
import { createTestDatabase, TestDatabase } from '../support/test-database';

/**
 * Issue 19: /readyz of a process running every role (BullMQ workers hold blocking connections, the scheduler its own)
 * answers 503 within a bounded time when its Redis is gone or frozen, never hangs, and says ready again once Redis is
 * back. Each test has a redis-server of its own; the machine's shared one is never touched.
 */

/** The probe's own Redis timeout is 1 s; a loaded 2-core machine gets the rest. */
const DEADLINE_MS = 3000;
const PROBES = 5;
/** A bound, not a target: without Redis every queue worker's close runs to its own deadline (see the last test). */
// its three queue workers close together: SHUTDOWN_TIMEOUT_MS (2 s) for in-flight jobs, then 2 s for a forced close
// and 2 s to drop the connections, about 6 s in all; one after another they took 18 s
const SHUTDOWN_BOUND_MS = 12_000;

jest.setTimeout(90_000);

interface Probe {
  status: number;
  checks: unknown;
  retryAfter: string | null;
  elapsedMs: number;
}

async function probe(baseUrl: string): Promise<Probe> {
  const start = performance.now();
  const response = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(30_000) });
  const body = (await response.json()) as { checks: unknown };
  return {
    status: response.status,
    checks: body.checks,
    retryAfter: response.headers.get('retry-after'),
    elapsedMs: performance.now() - start,
  };
}

/** Several probes at once, as a load balancer and an orchestrator ask together: none may queue behind another. */
async function probesAtOnce(baseUrl: string): Promise<Probe[]> {
  return Promise.all(Array.from({ length: PROBES }, () => probe(baseUrl)));
}

const NOT_READY = { status: 503, checks: { postgres: 'up', redis: 'down' }, retryAfter: '5' };

describe('/readyz of an api,worker,scheduler process whose Redis goes away', () => {
  let db: TestDatabase;
  let redis: OwnRedis;
  let app: AppProcess;
  let baseUrl: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    redis = await startOwnRedis();
    ({ app, url: baseUrl } = await startListeningAppProcess({
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      QUEUE_PREFIX: `tc-test-${randomBytes(4).toString('hex')}`,
      ROLES: 'api,worker,scheduler',
      MIGRATE_ON_START: 'false',
      SHUTDOWN_TIMEOUT_MS: '2000',
    }));
  }, 60_000);

  afterAll(async () => {
    if (app && app.child.exitCode === null && app.child.signalCode === null) {
      app.child.kill('SIGKILL');
      await app.exited;
    }
    redis?.thaw();
    await redis?.stop();
    await db?.drop();
  });

  it('is ready while Redis answers', async () => {
    expect(await probe(baseUrl)).toMatchObject({ status: 200, checks: { postgres: 'up', redis: 'up' } });
  });

  it('answers 503 naming redis within 3 s, every probe, while Redis is stopped; ready again once it is back', async () => {
    await redis.stop();
    for (const answer of await probesAtOnce(baseUrl)) {
      expect(answer).toMatchObject(NOT_READY);
      expect(answer.elapsedMs).toBeLessThan(DEADLINE_MS);
    }
    // and again after the clients have been retrying for a while
    const later = await probe(baseUrl);
    expect(later).toMatchObject(NOT_READY);
    expect(later.elapsedMs).toBeLessThan(DEADLINE_MS);

    redis = await startOwnRedis([], redis.port);
    await eventually(async () => ((await probe(baseUrl)).status === 200 ? true : undefined), 30_000, 200);
  });

  it('answers 503 naming redis within 3 s while Redis is frozen (connections open, nothing answers); ready after it thaws', async () => {
    redis.freeze();
    for (const answer of await probesAtOnce(baseUrl)) {
      expect(answer).toMatchObject(NOT_READY);
      expect(answer.elapsedMs).toBeLessThan(DEADLINE_MS);
    }
    redis.thaw();
    await eventually(async () => ((await probe(baseUrl)).status === 200 ? true : undefined), 30_000, 200);
  });

  it('still stops on SIGTERM, with exit code 0, while Redis is gone', async () => {
    await redis.stop();
    expect(await probe(baseUrl)).toMatchObject(NOT_READY);
    const start = performance.now();
    app.child.kill('SIGTERM');
    const code = await app.exited;
    // each queue worker (events, analytics, alerts) waits for its in-flight jobs and then for a forced close that
    // cannot reach Redis, all at once (QueueWorkers)
    expect({ code, isBounded: performance.now() - start < SHUTDOWN_BOUND_MS }).toEqual({ code: 0, isBounded: true });
  });
});
