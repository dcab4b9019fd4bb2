import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { eventually, startTestApp, TestApp } from '../support/test-app';
import { runNightly } from '../support/job-runs';

const DAY_MS = 86_400_000;
const today = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
const dayOf = (offset: number) => new Date(today.getTime() + offset * DAY_MS);
const ymd = (date: Date) => date.toISOString().slice(0, 10);
const D1 = dayOf(-3); // the nightly job runs for this day
const D2 = dayOf(-1); // not run yet: read from hourly rollups
const FROM = ymd(D1);
const TO = ymd(dayOf(1));

/** The dashboard's REST queries over HTTP against seeded events, the worker and the nightly job really running. */
describe('dashboard REST API', () => {
  let t: TestApp;
  let stored = 0;
  const timings: Record<string, number> = {};

  const at = (day: Date, i: number) => new Date(day.getTime() + 8 * 3_600_000 + i * 1000).toISOString();
  const factorial = (day: Date, i: number, n: number, agent = 'agent-a') =>
    n <= 20
      ? {
          id: randomUUID(),
          tool: 'factorial',
          status: 'success',
          arguments: { n },
          durationMs: 2,
          occurredAt: at(day, i),
          agent,
          model: 'gpt-4.1',
        }
      : {
          id: randomUUID(),
          tool: 'factorial',
          status: 'error',
          arguments: { n },
          durationMs: 40,
          occurredAt: at(day, i),
          agent,
          model: 'gpt-4.1',
          error: { type: 'OverflowError', message: `Factorial calculation overflow for n = ${n}` },
        };
  const prime = (day: Date, i: number, isMistake: boolean) =>
    isMistake
      ? {
          id: randomUUID(),
          tool: 'prime_factorization',
          status: 'error',
          arguments: { numbers: [12, 15] },
          occurredAt: at(day, i),
          agent: 'agent-b',
          model: 'claude',
          error: { type: 'TypeError', message: "prime_factorization() got an unexpected keyword argument 'numbers'" },
        }
      : {
          id: randomUUID(),
          tool: 'prime_factorization',
          status: 'success',
          arguments: { number: 12 },
          durationMs: 5,
          occurredAt: at(day, i),
          agent: 'agent-b',
          model: 'claude',
        };

  async function send(events: Array<Record<string, unknown>>, key = t.apiKey) {
    const response = await t.request('POST', '/v1/events', { body: { events }, key });
    expect(response.status).toBe(202);
    stored += events.length;
    await eventually(async () => {
      const { rows } = await t.db.sql.query('SELECT count(*)::int AS n FROM events');
      return rows[0].n === stored ? true : undefined;
    }, 20_000);
  }

  async function timed(name: string, path: string, init: { method?: string; body?: unknown; key?: string } = {}) {
    const started = performance.now();
    const response = await t.request(init.method ?? 'GET', path, { body: init.body, key: init.key });
    timings[name] = Math.max(timings[name] ?? 0, Math.round((performance.now() - started) * 10) / 10);
    return response;
  }

  beforeAll(async () => {
    t = await startTestApp();
    await t.request('PUT', '/v1/tools/factorial', {
      body: {
        description: 'Compute n! for a non-negative integer n.',
        parameters: { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'] },
      },
    });
    const events = [];
    for (let i = 0; i < 20; i++) events.push(factorial(D1, i, i));
    for (let i = 0; i < 5; i++) events.push(factorial(D1, 20 + i, 25 + i, i < 2 ? 'agent-b' : 'agent-a'));
    for (let i = 0; i < 13; i++) events.push(prime(D1, 100 + i, i < 3));
    for (let i = 0; i < 10; i++) events.push(factorial(D2, i, i < 2 ? 30 + i : i));
    for (let i = 0; i < 5; i++)
      events.push({ ...factorial(today, i, i === 0 ? 40 : i), occurredAt: new Date(today.getTime() + i * 1000).toISOString() });
    await send(events);
    const run = await runNightly(t, ymd(D1));
    expect(run.body.status).toBe('succeeded');
  });

  afterAll(async () => {
    mkdirSync(join(__dirname, '..', 'artifacts'), { recursive: true });
    writeFileSync(join(__dirname, '..', 'artifacts', 'dashboard-timings.json'), JSON.stringify(timings, null, 2));
    console.log(`dashboard endpoint timings (ms, slowest call each): ${JSON.stringify(timings)}`);
    await t.close();
  });

  describe('GET /v1/stats/tools', () => {
    it('gives one row per tool with calls, success rate, latency percentiles and errors by category', async () => {
      const response = await timed('GET /v1/stats/tools', `/v1/stats/tools?from=${FROM}&to=${TO}`);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        from: `${FROM}T00:00:00.000Z`,
        to: `${TO}T00:00:00.000Z`,
        bucket: 'day',
        sort: 'name',
        nextCursor: null,
      });
      const [fact, primeRow] = response.body.items;
      expect(fact).toMatchObject({ tool: 'factorial', calls: 40, errors: 8, errorsByCategory: { overflow: 8 } });
      expect(fact.successRate).toBeCloseTo(32 / 40);
      expect(fact.latencyP50Ms).toBeLessThanOrEqual(2);
      expect(fact.latencyP95Ms).toBeGreaterThan(25);
      expect(fact.latencyP95Ms).toBeLessThanOrEqual(50);
      expect(primeRow).toMatchObject({ tool: 'prime_factorization', calls: 13, errors: 3, errorsByCategory: { argument_mismatch: 3 } });
    });

    it('sorts and pages with a cursor', async () => {
      const first = await t.request('GET', `/v1/stats/tools?from=${FROM}&to=${TO}&sort=success_rate&limit=1`);
      expect(first.body.items.map((r: { tool: string }) => r.tool)).toEqual(['prime_factorization']);
      expect(first.body.nextCursor).toEqual(expect.any(String));
      const second = await t.request(
        'GET',
        `/v1/stats/tools?from=${FROM}&to=${TO}&sort=success_rate&limit=1&cursor=${first.body.nextCursor}`,
      );
      expect(second.body.items.map((r: { tool: string }) => r.tool)).toEqual(['factorial']);
      expect(second.body.nextCursor).toBeNull();
      const mismatched = await t.request('GET', `/v1/stats/tools?sort=calls&cursor=${first.body.nextCursor}`);
      expect(mismatched.status).toBe(400);
      expect(mismatched.body.error.details[0].path).toBe('/query/cursor');
    });
  });

  describe('GET /v1/tools/:name/stats', () => {
    it('gives a zero-filled daily series that includes today, from the nightly table and the hourly rollups', async () => {
      const response = await timed('GET /v1/tools/:name/stats?bucket=day', `/v1/tools/factorial/stats?from=${FROM}&to=${TO}&bucket=day`);
      expect(response.status).toBe(200);
      expect(response.body.totals).toMatchObject({ calls: 40, errors: 8 });
      const byDay = Object.fromEntries(response.body.series.map((p: { start: string }) => [p.start.slice(0, 10), p]));
      expect(response.body.series).toHaveLength(4);
      expect(byDay[ymd(D1)]).toMatchObject({ calls: 25, errors: 5, successRate: 0.8, errorsByCategory: { overflow: 5 } });
      expect(byDay[ymd(dayOf(-2))]).toMatchObject({ calls: 0, errors: 0, successRate: null });
      expect(byDay[ymd(D2)]).toMatchObject({ calls: 10, errors: 2, errorsByCategory: { overflow: 2 } });
      expect(byDay[ymd(today)]).toMatchObject({ calls: 5, errors: 1 });
    });

    it('reads a day the nightly job computed from daily_tool_stats, not from the hourly rollups', async () => {
      await t.db.sql.query(`UPDATE hourly_rollups SET calls = calls + 1000 WHERE hour >= $1 AND hour < $2`, [D1, dayOf(-2)]);
      try {
        const response = await t.request('GET', `/v1/tools/factorial/stats?from=${FROM}&to=${ymd(dayOf(-2))}`);
        expect(response.body.totals.calls).toBe(25);
      } finally {
        await t.db.sql.query(`UPDATE hourly_rollups SET calls = calls - 1000 WHERE hour >= $1 AND hour < $2`, [D1, dayOf(-2)]);
      }
    });

    it('gives hourly buckets from the hourly rollups', async () => {
      const response = await timed('GET /v1/tools/:name/stats?bucket=hour', `/v1/tools/factorial/stats?bucket=hour&from=${ymd(D2)}`);
      expect(response.status).toBe(200);
      expect(response.body.bucket).toBe('hour');
      expect(response.body.series[8]).toMatchObject({ start: new Date(D2.getTime() + 8 * 3_600_000).toISOString(), calls: 10, errors: 2 });
      expect(response.body.totals).toMatchObject({ calls: 15, errors: 3 });
    });

    it('answers an unknown tool with an empty series', async () => {
      const response = await t.request('GET', '/v1/tools/nope/stats');
      expect(response.status).toBe(200);
      expect(response.body.totals.calls).toBe(0);
      expect(response.body.series).toHaveLength(8);
    });
  });

  describe('GET /v1/stats/overview', () => {
    it('gives calls, success rate, top failing tools and error groups, the trend and the series', async () => {
      const response = await timed('GET /v1/stats/overview', `/v1/stats/overview?from=${FROM}&to=${TO}`);
      expect(response.status).toBe(200);
      const body = response.body;
      expect(body.totals).toMatchObject({ calls: 53, errors: 11 });
      expect(body.totals.successRate).toBeCloseTo(42 / 53);
      expect(body.previous).toMatchObject({ calls: 0, successRate: null, to: `${FROM}T00:00:00.000Z` });
      expect(body.trend).toEqual({ callsChange: null, errorsChange: null, successRateChange: null });
      expect(body.topFailingTools.map((r: { tool: string; errors: number }) => [r.tool, r.errors])).toEqual([
        ['factorial', 8],
        ['prime_factorization', 3],
      ]);
      expect(body.topErrorGroups[0]).toMatchObject({ tool: 'factorial', category: 'overflow', count: 8, status: 'open' });
      expect(body.series.map((p: { calls: number }) => p.calls)).toEqual([38, 0, 10, 5]);
    });

    it('compares with the previous period of the same length', async () => {
      const response = await t.request('GET', `/v1/stats/overview?from=${ymd(D2)}&to=${TO}`);
      expect(response.body.totals.calls).toBe(15);
      expect(response.body.previous).toMatchObject({ calls: 38, from: `${ymd(dayOf(-3))}T00:00:00.000Z` });
      expect(response.body.trend.callsChange).toBeCloseTo(15 / 38 - 1);
      expect(response.body.trend.successRateChange).toBeCloseTo(12 / 15 - 30 / 38);
    });
  });

  describe('by agent and by model (hourly_dimension_rollups)', () => {
    it('gives success rate and error mix per agent and per model, most calls first', async () => {
      const agents = await timed('GET /v1/stats/agents', `/v1/stats/agents?from=${FROM}&to=${TO}`);
      expect(agents.status).toBe(200);
      expect(agents.body).toMatchObject({ from: `${FROM}T00:00:00.000Z`, to: `${TO}T00:00:00.000Z`, tool: null, nextCursor: null });
      expect(agents.body.items).toEqual([
        { name: 'agent-a', calls: 38, errors: 6, successRate: 32 / 38, errorsByCategory: { overflow: 6 } },
        { name: 'agent-b', calls: 15, errors: 5, successRate: 10 / 15, errorsByCategory: { overflow: 2, argument_mismatch: 3 } },
      ]);
      const models = await timed('GET /v1/stats/models', `/v1/stats/models?from=${FROM}&to=${TO}`);
      expect(models.body.items).toEqual([
        { name: 'gpt-4.1', calls: 40, errors: 8, successRate: 32 / 40, errorsByCategory: { overflow: 8 } },
        { name: 'claude', calls: 13, errors: 3, successRate: 10 / 13, errorsByCategory: { argument_mismatch: 3 } },
      ]);
    });

    it('narrows to one tool and pages with a cursor', async () => {
      const prime = await t.request('GET', `/v1/stats/agents?from=${FROM}&to=${TO}&tool=prime_factorization`);
      expect(prime.body.items.map((r: { name: string; calls: number }) => [r.name, r.calls])).toEqual([['agent-b', 13]]);
      const first = await t.request('GET', `/v1/stats/models?from=${FROM}&to=${TO}&limit=1`);
      expect(first.body.items.map((r: { name: string }) => r.name)).toEqual(['gpt-4.1']);
      const second = await t.request('GET', `/v1/stats/models?from=${FROM}&to=${TO}&limit=1&cursor=${first.body.nextCursor}`);
      expect(second.body).toMatchObject({ items: [{ name: 'claude' }], nextCursor: null });
    });

    it("filters the overview, the tools table and a tool's series to one agent or model", async () => {
      const overview = await timed('GET /v1/stats/overview?agent=', `/v1/stats/overview?from=${FROM}&to=${TO}&agent=agent-b`);
      expect(overview.status).toBe(200);
      expect(overview.body.totals).toMatchObject({ calls: 15, errors: 5, errorsByCategory: { overflow: 2, argument_mismatch: 3 } });
      expect(overview.body.totals.latencyP50Ms).toBeNull();
      expect(overview.body.series.map((p: { calls: number }) => p.calls)).toEqual([15, 0, 0, 0]);
      const tools = await t.request('GET', `/v1/stats/tools?from=${FROM}&to=${TO}&agent=agent-b`);
      expect(tools.body.items.map((r: { tool: string; calls: number; errors: number }) => [r.tool, r.calls, r.errors])).toEqual([
        ['factorial', 2, 2],
        ['prime_factorization', 13, 3],
      ]);
      const hourly = await t.request('GET', `/v1/tools/factorial/stats?bucket=hour&from=${ymd(D2)}&model=gpt-4.1`);
      expect(hourly.body.totals).toMatchObject({ calls: 15, errors: 3 });
      expect(hourly.body.series[8]).toMatchObject({ calls: 10, errors: 2, errorsByCategory: { overflow: 2 } });
      const none = await t.request('GET', `/v1/tools/factorial/stats?from=${FROM}&to=${TO}&model=claude`);
      expect(none.body.totals).toMatchObject({ calls: 0, errors: 0 });
    });

    it("never shows another project's agents or models", async () => {
      const other = await t.createProject(`other-${randomUUID().slice(0, 6)}`);
      expect((await t.request('GET', `/v1/stats/agents?from=${FROM}`, { key: other.apiKey })).body.items).toEqual([]);
      const filtered = await t.request('GET', `/v1/stats/overview?from=${FROM}&agent=agent-a`, { key: other.apiKey });
      expect(filtered.body.totals.calls).toBe(0);
    });
  });

  describe('error groups', () => {
    let groupId: string;

    it("lists a tool's groups, most recently seen first", async () => {
      const response = await timed('GET /v1/tools/:name/error-groups', '/v1/tools/factorial/error-groups');
      expect(response.status).toBe(200);
      expect(response.body.items).toHaveLength(1);
      expect(response.body.items[0]).toMatchObject({
        tool: 'factorial',
        category: 'overflow',
        count: 8,
        argumentPath: '/n',
        status: 'open',
        minOffendingValue: 25,
        maxOffendingValue: 40,
      });
      groupId = response.body.items[0].id;
      expect((await t.request('GET', '/v1/tools/factorial/error-groups?status=resolved')).body.items).toEqual([]);
    });

    it('shows one group with sample events and the argument values that failed, filtered by agent', async () => {
      const response = await timed('GET /v1/error-groups/:id', `/v1/error-groups/${groupId}`);
      expect(response.status).toBe(200);
      expect(response.body.samples).toHaveLength(5);
      expect(response.body.samples[0].error.type).toBe('OverflowError');
      expect(response.body.failedArguments.map((a: { value: unknown }) => a.value).sort()).toEqual([25, 26, 27, 28, 29]);
      expect(response.body.failedArguments[0].path).toBe('/n');
      const byAgent = await t.request('GET', `/v1/error-groups/${groupId}?agent=agent-b`);
      expect(byAgent.body.samples.map((s: { agent: string }) => s.agent)).toEqual(['agent-b', 'agent-b']);
      expect((await t.request('GET', `/v1/error-groups/${groupId}?model=other`)).body.samples).toEqual([]);
    });

    it('lets a human resolve a group, and marks it regressed when it recurs', async () => {
      const patched = await timed('PATCH /v1/error-groups/:id', `/v1/error-groups/${groupId}`, {
        method: 'PATCH',
        body: { status: 'resolved' },
      });
      expect(patched.status).toBe(200);
      expect(patched.body.status).toBe('resolved');
      await send([{ ...factorial(today, 50, 99), occurredAt: new Date(today.getTime() + 50_000).toISOString() }]);
      const group = await eventually(async () => {
        const { body } = await t.request('GET', `/v1/error-groups/${groupId}`);
        return body.status === 'regressed' ? body : undefined;
      });
      expect(group.count).toBe(9);
      expect((await t.request('PATCH', `/v1/error-groups/${groupId}`, { body: { status: 'ignored' } })).body.status).toBe('ignored');
    });

    it("keeps a human's ignore when the group recurs: the worker only ever turns resolved into regressed", async () => {
      await send([{ ...factorial(today, 51, 98), occurredAt: new Date(today.getTime() + 51_000).toISOString() }]);
      const { body } = await t.request('GET', `/v1/error-groups/${groupId}`);
      expect(body).toMatchObject({ status: 'ignored', count: 10 });
    });

    it('refuses a status a human cannot set with 400 naming /status', async () => {
      for (const body of [{ status: 'regressed' }, {}, { status: 'open', extra: 1 }]) {
        const response = await t.request('PATCH', `/v1/error-groups/${groupId}`, { body });
        expect(response.status).toBe(400);
        expect(response.body.error.details[0].path).toMatch(/^\/(status|extra)$/);
      }
    });

    it("answers 404 for an unknown id, and for another project's group", async () => {
      const other = await t.createProject(`other-${randomUUID().slice(0, 6)}`);
      expect((await t.request('GET', `/v1/error-groups/${groupId}`, { key: other.apiKey })).status).toBe(404);
      expect((await t.request('PATCH', `/v1/error-groups/${groupId}`, { key: other.apiKey, body: { status: 'open' } })).status).toBe(404);
      expect((await t.request('GET', `/v1/error-groups/${randomUUID()}`)).status).toBe(404);
      expect((await t.request('GET', '/v1/error-groups/not-a-uuid')).status).toBe(404);
      expect((await t.request('GET', '/v1/tools/factorial/error-groups', { key: other.apiKey })).body.items).toEqual([]);
    });
  });

  describe('GET /v1/tools/:name/version-history', () => {
    it('lists description versions newest first with the calls that reported each', async () => {
      const response = await timed('GET /v1/tools/:name/version-history', '/v1/tools/factorial/version-history');
      expect(response.status).toBe(200);
      const versions = response.body.items.map((v: { version: number }) => v.version);
      expect(versions[versions.length - 1]).toBe(1);
      expect([...versions].sort((a: number, b: number) => b - a)).toEqual(versions);
      expect(response.body.items[response.body.items.length - 1].description).toContain('Compute n!');
      const paged = await t.request('GET', '/v1/tools/factorial/version-history?limit=1');
      expect(paged.body.items).toHaveLength(1);
      if (versions.length > 1)
        expect((await t.request('GET', `/v1/tools/factorial/version-history?cursor=${paged.body.nextCursor}`)).body.items[0].version).toBe(
          versions[1],
        );
    });

    it('answers 404 for a tool the project does not have', async () => {
      const other = await t.createProject(`other-${randomUUID().slice(0, 6)}`);
      expect((await t.request('GET', '/v1/tools/factorial/version-history', { key: other.apiKey })).status).toBe(404);
    });
  });

  it('filters events by agent and model', async () => {
    const response = await timed('GET /v1/events?agent=', '/v1/events?agent=agent-b&limit=200');
    expect(response.body.items.length).toBe(15);
    expect(new Set(response.body.items.map((e: { agent: string }) => e.agent))).toEqual(new Set(['agent-b']));
    expect((await t.request('GET', '/v1/events?model=claude&limit=200')).body.items.length).toBe(13);
  });

  it("never shows another project this project's numbers", async () => {
    const other = await t.createProject(`other-${randomUUID().slice(0, 6)}`);
    const overview = await t.request('GET', `/v1/stats/overview?from=${FROM}&to=${TO}`, { key: other.apiKey });
    expect(overview.body.totals.calls).toBe(0);
    expect(overview.body.topErrorGroups).toEqual([]);
    expect((await t.request('GET', `/v1/stats/tools?from=${FROM}`, { key: other.apiKey })).body.items).toEqual([]);
    expect((await t.request('GET', '/v1/tools/factorial/stats', { key: other.apiKey })).body.totals.calls).toBe(0);
    expect((await t.request('GET', '/v1/stats/overview', { key: null })).status).toBe(401);
  });

  it.each([
    ['/v1/stats/overview?from=last-week', '/query/from'],
    ['/v1/stats/overview?to=2026-02-30', '/query/to'],
    ['/v1/stats/overview?bucket=week', '/query/bucket'],
    ['/v1/stats/overview?agent=agent-a&model=gpt-4.1', '/query/model'],
    ['/v1/stats/tools?agent=', '/query/agent'],
    ['/v1/stats/agents?tool=', '/query/tool'],
    ['/v1/stats/models?limit=201', '/query/limit'],
    ['/v1/stats/models?cursor=xyz', '/query/cursor'],
    ['/v1/stats/agents?from=2020-01-01', '/query/from'],
    ['/v1/stats/tools?sort=fastest', '/query/sort'],
    ['/v1/stats/tools?limit=0', '/query/limit'],
    ['/v1/stats/tools?cursor=bm9wZQ', '/query/cursor'],
    ['/v1/stats/tools?from=2020-01-01', '/query/from'],
    ['/v1/tools/factorial/stats?bucket=hour&from=2026-01-01&to=2026-03-01', '/query/from'],
    ['/v1/tools/factorial/stats?from=2026-03-02&to=2026-03-01', '/query/from'],
    ['/v1/tools/factorial/stats?colour=red', '/query/colour'],
    ['/v1/tools/factorial/error-groups?status=closed', '/query/status'],
    ['/v1/tools/factorial/error-groups?category=bad', '/query/category'],
    ['/v1/tools/factorial/error-groups?from=soon', '/query/from'],
    ['/v1/tools/factorial/error-groups?cursor=xyz', '/query/cursor'],
    ['/v1/tools/factorial/version-history?cursor=xyz', '/query/cursor'],
    ['/v1/events?agent=', '/query/agent'],
    ['/v1/events?limit=Infinity', '/query/limit'],
    ['/v1/stats/tools?limit=Infinity', '/query/limit'],
    ['/v1/tools/factorial/error-groups?limit=Infinity', '/query/limit'],
    ['/v1/tools/factorial/version-history?limit=Infinity', '/query/limit'],
  ])('answers %s with 400 naming %s', async (path, field) => {
    const response = await t.request('GET', path);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_query');
    expect(response.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
    expect(response.body.error.message).toContain(field.replace('/query/', ''));
  });
});
