import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { QueueProducer } from '../../src/infra/queue/queue.producer';
import { anEvent } from '../factories/event.factory';
import { registeredRoutes } from '../support/openapi-contract';
import { OwnRedis, startOwnRedis } from '../support/redis-server';
import { eventually, startTestApp, TestApp, TestResponse } from '../support/test-app';

// Issue 13, finding 6 (and /readyz of finding 10): a Redis that stops answering, or refuses writes, never hangs a
// request. Each test runs its own redis-server (frozen with SIGSTOP), never the machine's shared one.

const DEADLINE_MS = 3000;

async function timed(request: () => Promise<TestResponse>): Promise<TestResponse & { elapsedMs: number }> {
  const start = performance.now();
  const response = await request();
  return { ...response, elapsedMs: performance.now() - start };
}

const isFine = (response: TestResponse) =>
  response.status < 500 || (response.status === 503 && Number(response.headers.get('retry-after')) > 0);

const span = (spanId: string) => ({
  traceId: randomUUID().replaceAll('-', ''),
  spanId,
  name: 'execute_tool calc',
  attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } }],
});

/** A body each route would take from a well-behaved client, so the route reaches whatever it needs Redis for. */
function bodyFor(method: string, template: string): unknown {
  if (method === 'GET' || method === 'DELETE') return undefined;
  const bodies: Record<string, unknown> = {
    'POST /v1/events': { events: [anEvent(), anEvent()] },
    'POST /v1/traces': { resourceSpans: [{ scopeSpans: [{ spans: [span('00f067aa0ba902b7')] }] }] },
    'PUT /v1/tools/{name}': { description: `calc ${randomUUID()}`, parameters: { type: 'object', properties: { n: { type: 'integer' } } } },
    'POST /v1/tools:bulk': { tools: [{ name: 'bulk_one', description: `bulk ${randomUUID()}`, parameters: { type: 'object' } }] },
    'POST /v1/tools/{name}/validate': { arguments: { n: 1 } },
    'POST /v1/tools/{name}/warnings': { text: 'Pass n as an integer.' },
    'PUT /v1/policy': { autoApply: false, minOccurrences: 5, minShare: 0.05, autoApplyKinds: [], autoRetire: false },
    'PATCH /v1/error-groups/{id}': { status: 'resolved' },
  };
  return bodies[`${method} ${template}`] ?? {};
}

describe('finding 6: a frozen Redis', () => {
  let redis: OwnRedis;
  let t: TestApp;
  beforeAll(async () => {
    redis = await startOwnRedis();
    t = await startTestApp({ REDIS_URL: redis.url });
    await t.request('PUT', '/v1/tools/calc', { body: bodyFor('PUT', '/v1/tools/{name}') });
    redis.freeze();
  });
  afterAll(async () => {
    redis.thaw();
    await t.close();
    await redis.stop();
  });

  it('does not hang GET /v1/tools behind the rate limiter: it answers within 3 s', async () => {
    const response = await timed(() => t.request('GET', '/v1/tools'));
    expect(response.status).toBe(200);
    expect(response.elapsedMs).toBeLessThan(DEADLINE_MS);
  });

  it('answers POST /v1/events and POST /v1/traces with 503 and Retry-After within 3 s', async () => {
    for (const path of ['/v1/events', '/v1/traces']) {
      const response = await timed(() => t.request('POST', path, { body: bodyFor('POST', path) }));
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(response.elapsedMs).toBeLessThan(DEADLINE_MS);
    }
  });

  it('answers every route it serves within 3 s: normally when Redis is not needed, else 503 with Retry-After', async () => {
    const slowOrBroken: string[] = [];
    for (const route of registeredRoutes(t.app)) {
      const [method, template] = route.split(' ');
      const path = template
        .replace('{name}', 'calc')
        .replace(/\{[^}]+\}/g, randomUUID())
        .replace('*', 'index.html');
      const response = await timed(() => t.request(method, path, { body: bodyFor(method, template) }));
      if (response.elapsedMs >= DEADLINE_MS || !isFine(response)) {
        slowOrBroken.push(
          `${route} -> ${response.status} after ${Math.round(response.elapsedMs)} ms ${JSON.stringify(response.body).slice(0, 120)}`,
        );
      }
    }
    expect(slowOrBroken).toEqual([]);
    // each route is held to DEADLINE_MS; the whole walk gets that for each route (about 100 routes)
  }, 300_000);

  it('reports not ready on /readyz within 3 s, naming redis', async () => {
    const response = await timed(() => t.request('GET', '/readyz', { key: null }));
    expect(response.status).toBe(503);
    expect(response.body.checks).toEqual({ postgres: 'up', redis: 'down' });
    expect(response.headers.get('retry-after')).toBe('5');
    expect(response.elapsedMs).toBeLessThan(DEADLINE_MS);
  });
});

describe('finding 6: ingest while Redis is frozen and the rate limiter is off', () => {
  let redis: OwnRedis;
  let t: TestApp;
  beforeAll(async () => {
    redis = await startOwnRedis();
    t = await startTestApp({ REDIS_URL: redis.url, RATE_LIMIT_REQUESTS: '0' });
  });
  afterAll(async () => {
    redis.thaw();
    await t.close();
    await redis.stop();
  });

  it('answers 503 within 3 s without claiming nothing was accepted; the batch lands once Redis is back, and resending it stores nothing twice', async () => {
    const events = Array.from({ length: 5 }, () => anEvent());
    redis.freeze();
    const response = await timed(() => t.request('POST', '/v1/events', { body: { events } }));
    redis.thaw();
    expect(response.status).toBe(503);
    expect(response.elapsedMs).toBeLessThan(DEADLINE_MS);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(response.body.error.code).toBe('queue_unconfirmed');
    expect(response.body.error.message).not.toMatch(/nothing was accepted/);
    expect(response.body.error.message).toMatch(/same ids is safe/);
    expect(response.body.accepted).toBeUndefined();
    for (const event of events) await t.storedEvent(event.id as string);

    expect((await t.request('POST', '/v1/events', { body: { events } })).status).toBe(202);
    const queue = t.app.get(QueueProducer).events;
    await eventually(async () => ((await queue.getCompletedCount()) >= 2 ? true : undefined));
    const { rows } = await t.db.sql.query('SELECT count(*)::int AS n FROM events WHERE id = ANY($1)', [events.map((e) => e.id)]);
    expect(rows[0].n).toBe(5);
  });

  it('still says nothing was accepted when Redis was not reachable at all', async () => {
    const gone = await startTestApp({ ROLES: 'api', REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_REQUESTS: '0' }, { sharing: t });
    try {
      const response = await gone.request('POST', '/v1/events', { body: anEvent() });
      expect(response.status).toBe(503);
      expect(response.body).toMatchObject({ accepted: 0, error: { code: 'queue_unavailable' } });
    } finally {
      await gone.close();
    }
  });
});

describe('finding 10: /readyz and a Redis that refuses writes', () => {
  it('is not ready while Redis answers PING but refuses writes (min-replicas-to-write)', async () => {
    const redis = await startOwnRedis(['--min-replicas-to-write', '1']);
    const t = await startTestApp({ ROLES: 'api', REDIS_URL: redis.url });
    try {
      const response = await t.request('GET', '/readyz', { key: null });
      expect(response.status).toBe(503);
      expect(response.body.checks.redis).toBe('down');
      expect(response.body.problems.redis).toMatch(/NOREPLICAS/);
    } finally {
      await t.close();
      await redis.stop();
    }
  });

  it('is not ready while Redis is out of memory under noeviction, and ready again once it has room', async () => {
    const redis = await startOwnRedis(['--maxmemory-policy', 'noeviction']);
    const t = await startTestApp({ ROLES: 'api', REDIS_URL: redis.url });
    const admin = new Redis(redis.url);
    try {
      expect((await t.request('GET', '/readyz', { key: null })).status).toBe(200);
      await admin.set('filler', 'x'.repeat(4 * 1024 * 1024));
      // a limit below what Redis already holds: every write is refused from now on, as on a Redis that filled up
      await admin.config('SET', 'maxmemory', String(1024 * 1024));
      await expect(admin.set('probe', '1')).rejects.toThrow(/OOM/);
      const full = await t.request('GET', '/readyz', { key: null });
      expect(full.status).toBe(503);
      expect(full.body.problems.redis).toMatch(/OOM/);
      await admin.config('SET', 'maxmemory', '0');
      expect((await t.request('GET', '/readyz', { key: null })).status).toBe(200);
    } finally {
      admin.disconnect();
      await t.close();
      await redis.stop();
    }
  });
});
