import { randomUUID } from 'node:crypto';
import { Toolcoach } from '@toolcoach/sdk';
import { anErrorEvent, anEvent } from '../factories/event.factory';
import { eventually, startTestApp, TestApp } from '../support/test-app';
import { TcpProxy, throughProxy } from '../support/tcp-proxy';
import { BASE_DATABASE_URL, REDIS_URL } from '../support/test-env';

const batchOf = (n: number, tool: string) =>
  Array.from({ length: n }, (_, i) => (i % 4 === 0 ? anErrorEvent(`Value ${i} out of range`, { tool }) : anEvent({ tool })));

async function countEvents(t: TestApp): Promise<number> {
  return (await t.db.sql.query('SELECT count(*)::int AS n FROM events')).rows[0].n;
}

describe('Postgres unreachable while events keep arriving', () => {
  const proxy = new TcpProxy(Number(new URL(BASE_DATABASE_URL).port || 5432));
  let t: TestApp;
  beforeAll(async () => {
    await proxy.start();
    t = await startTestApp({ JOB_ATTEMPTS: '10' }, { databaseUrl: (url) => throughProxy(url, proxy.port) });
  });
  afterAll(async () => {
    proxy.restore();
    await t.close();
    await proxy.close();
  });

  it('keeps accepting, retries the batches with backoff, and stores every accepted event once it is back', async () => {
    let accepted = 0;
    const post = async (n: number) => {
      const response = await t.request('POST', '/v1/events', { body: { events: batchOf(n, 'pg_fault') } });
      if (response.status === 202) accepted += response.body.accepted;
      return response.status;
    };
    expect(await post(50)).toBe(202);
    await eventually(async () => ((await countEvents(t)) === accepted ? true : undefined));

    proxy.cut();
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      statuses.push(await post(100));
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    // the key was verified before the outage, so ingest keeps accepting into Redis
    expect(statuses.every((s) => s === 202)).toBe(true);
    expect(await countEvents(t)).toBe(50);
    const { rows } = await t.db.sql.query('SELECT 1');
    expect(rows).toHaveLength(1);

    proxy.restore();
    await eventually(async () => ((await countEvents(t)) === accepted ? true : undefined), 60_000, 200);
    const sums = await t.db.sql.query('SELECT sum(calls)::int AS calls FROM hourly_rollups');
    expect(sums.rows[0].calls).toBe(accepted);
  }, 90_000);
});

describe('Redis unreachable', () => {
  const proxy = new TcpProxy(Number(new URL(REDIS_URL).port || 6379));
  let t: TestApp;
  beforeAll(async () => {
    await proxy.start();
    t = await startTestApp({ REDIS_URL: throughProxy(REDIS_URL, proxy.port) });
  });
  afterAll(async () => {
    proxy.restore();
    await t.close();
    await proxy.close();
  });

  it('answers 503 with Retry-After while it is gone, accepts nothing, and stores everything sent again once it is back', async () => {
    const before = anEvent({ tool: 'redis_fault' });
    expect((await t.request('POST', '/v1/events', { body: before })).status).toBe(202);

    proxy.cut();
    const during = Array.from({ length: 5 }, () => anEvent({ id: `during-${randomUUID()}`, tool: 'redis_fault' }));
    const refused = await eventually(async () => {
      const response = await t.request('POST', '/v1/events', { body: { events: during } });
      return response.status === 503 ? response : undefined;
    });
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.body.accepted).toBe(0);
    const ready = await t.request('GET', '/readyz', { key: null });
    expect(ready.body.checks.redis).toBe('down');

    proxy.restore();
    // a client that honours Retry-After sends the same events again
    const resent = await eventually(
      async () => {
        const response = await t.request('POST', '/v1/events', { body: { events: during } });
        return response.status === 202 ? response : undefined;
      },
      20_000,
      250,
    );
    expect(resent.body.accepted).toBe(5);
    await eventually(async () => ((await countEvents(t)) === 6 ? true : undefined), 20_000);
    const { rows } = await t.db.sql.query(`SELECT count(*)::int AS n FROM events WHERE id LIKE 'during-%'`);
    expect(rows[0].n).toBe(5);
  }, 60_000);

  it('the SDK keeps its buffer through the outage and delivers everything once Redis is back', async () => {
    const tc = new Toolcoach({
      baseUrl: t.baseUrl,
      apiKey: t.apiKey,
      cacheDir: false,
      flushOnExit: false,
      flushIntervalMs: 100,
      initialBackoffMs: 100,
      maxBackoffMs: 1000,
      maxAttempts: 100,
      logger: { warn: () => undefined },
    });
    const { rows: before } = await t.db.sql.query(`SELECT count(*)::int AS n FROM events`);
    proxy.cut();
    for (let i = 0; i < 30; i++) tc.report({ id: `sdk-${randomUUID()}`, tool: 'sdk_outage', status: 'success', durationMs: 1 });
    // the API refuses while Redis is gone: nothing is lost, nothing dropped, the SDK holds the events
    await eventually(async () => (tc.stats().retries > 0 ? true : undefined), 10_000);
    expect(tc.stats().dropped).toBe(0);
    proxy.restore();
    const flushed = await tc.flush(30_000);
    expect(flushed).toEqual({ isComplete: true, queued: 0 });
    expect(tc.stats()).toMatchObject({ sent: 30, dropped: 0, rejected: 0 });
    await eventually(async () => {
      const { rows } = await t.db.sql.query(`SELECT count(*)::int AS n FROM events WHERE tool = 'sdk_outage'`);
      return rows[0].n === 30 ? true : undefined;
    }, 20_000);
    const { rows: after } = await t.db.sql.query(`SELECT count(*)::int AS n FROM events`);
    expect(after[0].n).toBe(before[0].n + 30);
    await tc.shutdown();
  }, 60_000);
});
