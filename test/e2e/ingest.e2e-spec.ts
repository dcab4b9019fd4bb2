import { anErrorEvent, anEvent } from '../factories/event.factory';
import { eventually, startTestApp, TestApp, TestResponse, untilWorkerIdle } from '../support/test-app';

describe('POST /v1/events', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const storedEvent = (id: string) => t.storedEvent(id);

  describe('authentication', () => {
    it('answers 401 with an error body when the key is missing', async () => {
      const response = await t.request('POST', '/v1/events', { body: anEvent(), key: null });
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('unauthorized');
    });

    it('answers 401 for an unknown key', async () => {
      const response = await t.request('POST', '/v1/events', { body: anEvent(), key: 'tc_not_a_real_key' });
      expect(response.status).toBe(401);
    });
  });

  describe('bad input', () => {
    it('rejects a body that is not JSON with 400 invalid_json', async () => {
      const response = await t.request('POST', '/v1/events', {
        rawBody: '{"tool": "x", ',
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('invalid_json');
    });

    it('rejects an event whose status is missing with 400 naming /events/0/status', async () => {
      const response = await t.request('POST', '/v1/events', { body: { tool: 'x' } });
      expect(response.status).toBe(400);
      expect(response.body.accepted).toBe(0);
      expect(response.body.rejected).toEqual([{ index: 0, errors: [{ path: '/events/0/status', message: 'is required' }] }]);
    });

    it('requires error when status is error, naming the field', async () => {
      const response = await t.request('POST', '/v1/events', { body: { events: [{ tool: 'x', status: 'error' }] } });
      expect(response.status).toBe(400);
      expect(response.body.rejected[0].errors).toContainEqual({ path: '/events/0/error', message: 'is required' });
    });

    it('accepts the valid events of a batch and lists the invalid ones by index with 202', async () => {
      const good = anEvent();
      const response = await t.request('POST', '/v1/events', {
        body: { events: [good, { tool: 'x', status: 'maybe' }, anEvent({ durationMs: -1 }), anEvent({ color: 'red' })] },
      });
      expect(response.status).toBe(202);
      expect(response.body.accepted).toBe(1);
      expect(response.body.ids).toEqual([good.id]);
      expect(response.body.rejected).toEqual([
        { index: 1, errors: [{ path: '/events/1/status', message: 'must be one of "success", "error"' }] },
        { index: 2, errors: [{ path: '/events/2/durationMs', message: 'must be >= 0' }] },
        { index: 3, errors: [{ path: '/events/3/color', message: 'is not a known field' }] },
      ]);
    });

    it('rejects more than 1000 events with 413', async () => {
      const events = Array.from({ length: 1001 }, () => ({ tool: 't', status: 'success' }));
      const response = await t.request('POST', '/v1/events', { body: { events } });
      expect(response.status).toBe(413);
      expect(response.body.error.code).toBe('too_many_events');
    });

    it('rejects a body over 1 MB with 413', async () => {
      const response = await t.request('POST', '/v1/events', { body: anEvent({ prompt: 'x'.repeat(1_100_000) }) });
      expect(response.status).toBe(413);
      expect(response.body.error.code).toBe('payload_too_large');
    });

    it('rejects an empty events array and a top-level array with 400', async () => {
      expect((await t.request('POST', '/v1/events', { body: { events: [] } })).status).toBe(400);
      const array = await t.request('POST', '/v1/events', { body: [anEvent()] });
      expect(array.status).toBe(400);
      expect(array.body.error.code).toBe('invalid_body');
    });

    it('rejects an id longer than 128 characters and a bad occurredAt, naming each', async () => {
      const response = await t.request('POST', '/v1/events', {
        body: { events: [anEvent({ id: 'a'.repeat(129) }), anEvent({ occurredAt: 'yesterday' })] },
      });
      expect(response.status).toBe(400);
      expect(response.body.rejected.map((r: { errors: Array<{ path: string }> }) => r.errors[0].path)).toEqual([
        '/events/0/id',
        '/events/1/occurredAt',
      ]);
    });
  });

  describe('storage and categorization', () => {
    it('stores a success event with a generated id when none is given', async () => {
      const response = await t.request('POST', '/v1/events', { body: { tool: 'get_weather', status: 'success', durationMs: 3 } });
      expect(response.status).toBe(202);
      const stored = await storedEvent(response.body.ids[0]);
      expect(stored).toMatchObject({ tool: 'get_weather', status: 'success', category: null, durationMs: 3 });
    });

    it('categorizes an overflow from the message and records the offending value', async () => {
      const event = anErrorEvent('Factorial calculation overflow: result exceeds the maximum safe integer for n = 25', {
        tool: 'factorial',
        arguments: { n: 25 },
        error: { type: 'OverflowError', message: 'Factorial calculation overflow for n = 25' },
      });
      expect((await t.request('POST', '/v1/events', { body: event })).status).toBe(202);
      const stored = await storedEvent(event.id as string);
      expect(stored.category).toBe('overflow');
      expect(stored.offendingValue).toBe(25);
      expect(stored.fingerprint).toMatch(/^[0-9a-f]{40}$/);
      expect(stored.errorGroupId).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('uses the registered JSON Schema as the strongest evidence: wrong argument name, intended name, array for scalar', async () => {
      await t.db.sql.query(`INSERT INTO tools (project_id, name, description, parameters) VALUES ($1, 'prime_factors', 'Factorize', $2)`, [
        t.projectId,
        JSON.stringify({
          type: 'object',
          properties: { number: { type: 'integer', maximum: 1000000 } },
          required: ['number'],
          additionalProperties: false,
        }),
      ]);
      const event = anErrorEvent('Tool execution failed', { tool: 'prime_factors', arguments: { numbers: [12, 18] } });
      await t.request('POST', '/v1/events', { body: event });
      const stored = await storedEvent(event.id as string);
      expect(stored).toMatchObject({
        category: 'argument_mismatch',
        subtype: 'unknown_argument',
        argumentPath: '/numbers',
        evidence: 'schema',
        wrongArgument: 'numbers',
        intendedArgument: 'number',
        arrayForScalar: true,
      });
    });

    it('groups errors whose messages differ only by values and counts them in hourly rollups', async () => {
      const occurredAt = '2026-03-04T10:15:00.000Z';
      const events = [7, 8, 9].map((n) =>
        anErrorEvent(`Invalid value for parameter 'count': ${n}. Expected one of [1, 2, 3].`, {
          tool: 'grouping_tool',
          occurredAt,
          durationMs: 40,
        }),
      );
      events.push(anEvent({ tool: 'grouping_tool', occurredAt, durationMs: 2000 }));
      await t.request('POST', '/v1/events', { body: { events } });
      const stored = await storedEvent(events[2].id as string);

      const group = await eventually(async () => {
        const { rows } = await t.db.sql.query('SELECT * FROM error_groups WHERE id = $1', [stored.errorGroupId]);
        return rows[0]?.count === '3' ? rows[0] : undefined;
      });
      expect(group.tool).toBe('grouping_tool');
      expect(group.sample_event_ids).toHaveLength(3);
      expect(new Date(group.first_seen).toISOString()).toBe(occurredAt);

      const { rows: hourly } = await t.db.sql.query(
        `SELECT calls, errors, latency_count, latency_sum_ms, latency_buckets FROM hourly_rollups WHERE project_id = $1 AND tool = 'grouping_tool'`,
        [t.projectId],
      );
      expect(hourly).toHaveLength(1);
      expect(hourly[0]).toMatchObject({ calls: 4, errors: 3, latency_count: 4, latency_sum_ms: 2120 });
      expect(hourly[0].latency_buckets.reduce((a: number, b: number) => a + b, 0)).toBe(4);

      const { rows: byCategory } = await t.db.sql.query(
        `SELECT category, subtype, count FROM hourly_error_rollups WHERE project_id = $1 AND tool = 'grouping_tool'`,
        [t.projectId],
      );
      expect(byCategory).toEqual([{ category: stored.category, subtype: stored.subtype ?? '', count: 3 }]);
    });

    it('marks a resolved error group regressed when its error occurs again', async () => {
      const first = anErrorEvent('Rate limit exceeded for key 12', { tool: 'regress_tool' });
      await t.request('POST', '/v1/events', { body: first });
      const stored = await storedEvent(first.id as string);
      await t.db.sql.query(`UPDATE error_groups SET status = 'resolved' WHERE id = $1`, [stored.errorGroupId]);
      const again = anErrorEvent('Rate limit exceeded for key 99', { tool: 'regress_tool' });
      await t.request('POST', '/v1/events', { body: again });
      await storedEvent(again.id as string);
      const { rows } = await t.db.sql.query('SELECT status, count FROM error_groups WHERE id = $1', [stored.errorGroupId]);
      expect(rows[0]).toEqual({ status: 'regressed', count: '2' });
    });

    it('never stores a re-sent event twice, nor counts it twice', async () => {
      const events = [anErrorEvent('boom 1', { tool: 'idem_tool' }), anEvent({ tool: 'idem_tool' })];
      await t.request('POST', '/v1/events', { body: { events } });
      await t.request('POST', '/v1/events', { body: { events } });
      await t.request('POST', '/v1/events', { body: { events: [events[0], events[0]] } });
      await untilWorkerIdle(t);

      const { rows } = await t.db.sql.query(
        `SELECT (SELECT count(*)::int FROM events WHERE tool = 'idem_tool') AS events,
                (SELECT sum(calls)::int FROM hourly_rollups WHERE tool = 'idem_tool') AS calls,
                (SELECT sum(count)::int FROM error_groups WHERE tool = 'idem_tool') AS grouped`,
      );
      expect(rows[0]).toEqual({ events: 2, calls: 2, grouped: 1 });
    });

    it('truncates an oversize result and error message as documented', async () => {
      const event = anErrorEvent('m'.repeat(10_000), { result: { text: 'r'.repeat(5000) } });
      await t.request('POST', '/v1/events', { body: event });
      const stored = await storedEvent(event.id as string);
      expect(stored.error.message).toHaveLength(8192);
      expect(stored.result).toMatchObject({ $truncated: true });
      expect(stored.result.preview.length).toBeLessThanOrEqual(4096);
    });

    it('refuses, per event and naming the path, strings Postgres cannot hold (NUL), and stores the rest of the batch', async () => {
      const bad = anErrorEvent('bad\u0000byte', { arguments: { 'k\u0000': 'v\u0000' } });
      const good = anErrorEvent('fine');
      const response = await t.request('POST', '/v1/events', { body: { events: [bad, good] } });
      expect(response.status).toBe(202);
      expect(response.body.accepted).toBe(1);
      expect(response.body.rejected).toHaveLength(1);
      expect(response.body.rejected[0].index).toBe(0);
      expect(JSON.stringify(response.body.rejected[0].errors)).toMatch(/\/events\/0\//);
      expect((await storedEvent(good.id as string)).id).toBe(good.id);
    });
  });
});

describe('GET /v1/events', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('lists newest first with a cursor that walks every page exactly once', async () => {
    const events = Array.from({ length: 7 }, (_, i) =>
      anEvent({ tool: 'paged', occurredAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString() }),
    );
    await t.request('POST', '/v1/events', { body: { events } });
    await eventually(async () => {
      const response = await t.request('GET', '/v1/events?tool=paged&limit=200');
      return response.body.items.length === 7 ? true : undefined;
    });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: TestResponse = await t.request('GET', `/v1/events?tool=paged&limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.items.map((e: { id: string }) => e.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...events].reverse().map((e) => e.id));
  });

  it('filters by status, category and time range', async () => {
    const error = anErrorEvent('Tool weather_x not found', { tool: 'filtered', occurredAt: '2026-02-01T00:00:00Z' });
    await t.request('POST', '/v1/events', { body: { events: [error, anEvent({ tool: 'filtered' })] } });
    const byCategory = await eventually(async () => {
      const response = await t.request('GET', '/v1/events?tool=filtered&status=error&category=unknown_tool');
      return response.body.items.length === 1 ? response.body.items : undefined;
    });
    expect(byCategory[0].id).toBe(error.id);
    const range = await t.request('GET', '/v1/events?tool=filtered&from=2026-01-31T00:00:00Z&to=2026-02-02T00:00:00Z');
    expect(range.body.items.map((e: { id: string }) => e.id)).toEqual([error.id]);
  });

  it('answers 400 naming the query parameter that is wrong', async () => {
    const response = await t.request('GET', '/v1/events?status=broken&limit=0');
    expect(response.status).toBe(400);
    expect(response.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['/query/limit', '/query/status']);
    const cursor = await t.request('GET', '/v1/events?cursor=garbage');
    expect(cursor.status).toBe(400);
    expect(cursor.body.error.details[0].path).toBe('/query/cursor');
  });

  it('never shows one project the events of another', async () => {
    const event = anEvent({ tool: 'secret_tool' });
    await t.request('POST', '/v1/events', { body: event });
    await eventually(async () => ((await t.request('GET', `/v1/events/${event.id}`)).status === 200 ? true : undefined));
    const other = await t.createProject('other-project');
    expect((await t.request('GET', `/v1/events/${event.id}`, { key: other.apiKey })).status).toBe(404);
    const list = await t.request('GET', '/v1/events?tool=secret_tool', { key: other.apiKey });
    expect(list.body.items).toEqual([]);
  });
});

describe('when Redis is unavailable', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ROLES: 'api', REDIS_URL: 'redis://127.0.0.1:1' });
  });
  afterAll(() => t.close());

  it('answers 503 with Retry-After and accepts nothing', async () => {
    const response = await t.request('POST', '/v1/events', { body: anEvent() });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(response.body).toMatchObject({ accepted: 0, error: { code: 'queue_unavailable' } });
  });

  it('reports not ready on /readyz, naming redis, while /healthz stays up', async () => {
    const ready = await t.request('GET', '/readyz', { key: null });
    expect(ready.status).toBe(503);
    expect(ready.body.checks).toEqual({ postgres: 'up', redis: 'down' });
    expect((await t.request('GET', '/healthz', { key: null })).status).toBe(200);
  });
});
