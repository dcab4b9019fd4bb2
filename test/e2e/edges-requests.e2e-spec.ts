import { encodeCursor } from '../../src/infra/http/cursor';
import { registeredRoutes } from '../support/openapi-contract';
import { startTestApp, TestApp } from '../support/test-app';
import { TcpProxy } from '../support/tcp-proxy';

// Issue 13, findings 9 and 10 (requests): odd text in paths and queries, ranges outside what Postgres stores and
// parameters named like Object.prototype members are clear 4xx answers; wrong keys are limited per client address
// without a query each; every answer carries the headers that keep a browser from framing or sniffing it.

const NUL = '%00';

describe('request edges', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    await t.request('PUT', '/v1/tools/calc', {
      body: { description: 'calc', parameters: { type: 'object', properties: { n: { type: 'integer' } } } },
    });
  });
  afterAll(() => t.close());

  describe('finding 9: a NUL in a path or query parameter is a 400 naming it, on every route', () => {
    it.each([
      ['/v1/events?tool=%00', '/query/tool'],
      ['/v1/events/a%00b', '/params/id'],
      ['/v1/tools/a%00b/stats', '/params/name'],
      ['/v1/recommendations?tool=%00', '/query/tool'],
      ['/v1/tools/a%00b/description', '/params/name'],
      ['/v1/tools/a%00b/error-groups', '/params/name'],
      ['/v1/tools/calc/stats?agent=%00', '/query/agent'],
      ['/v1/stats/tools?model=x%00', '/query/model'],
      ['/v1/events?tool=a&tool=%00', '/query/tool'],
      ['/v1/events?%00=1', '/query/\\u0000'],
    ])('GET %s answers 400 naming %s', async (path, pointer) => {
      const response = await t.request('GET', path);
      expect(response.status).toBe(400);
      expect(response.body.error.details).toContainEqual({
        path: pointer,
        message: expect.stringMatching(/must not contain the NUL character/),
      });
    });

    it('answers 400 naming the parameter on every route the app serves, whatever its method', async () => {
      const routes = registeredRoutes(t.app);
      expect(routes.length).toBeGreaterThan(30);
      const wrong: string[] = [];
      for (const route of routes) {
        const [method, template] = route.split(' ');
        const names = [...template.matchAll(/\{([^}]+)\}|\*/g)].map((match) => match[1] ?? '*');
        const path = names.length > 0 ? template.replace(/\{[^}]+\}|\*/, `a${NUL}b`).replace(/\{[^}]+\}/g, 'x') : `${template}?q=${NUL}`;
        const pointer = names.length > 0 ? `/params/${names[0]}` : '/query/q';
        const response = await t.request(method, path, { body: method === 'GET' || method === 'DELETE' ? undefined : {} });
        const named = response.body?.error?.details?.some((detail: { path: string }) => detail.path === pointer);
        if (response.status !== 400 || !named)
          wrong.push(`${method} ${path} -> ${response.status} ${JSON.stringify(response.body).slice(0, 160)}`);
      }
      expect(wrong).toEqual([]);
    });
  });

  describe('finding 9: a body holding what Postgres cannot store is a 400 naming the field, on every route', () => {
    const json = { 'content-type': 'application/json' };
    it.each([
      ['PUT', '/v1/tools/nul_text', JSON.stringify({ description: 'a\u0000b', parameters: { type: 'object' } }), '/description'],
      [
        'PUT',
        '/v1/tools/big_number',
        '{"description": "d", "parameters": {"type": "object", "properties": {"n": {"type": "number", "maximum": 1e309}}}}',
        '/parameters/properties/n/maximum',
      ],
      [
        'POST',
        '/v1/tools:bulk',
        JSON.stringify({ tools: [{ name: 'lone', description: 'd \ud800', parameters: { type: 'object' } }] }),
        '/tools/0/description',
      ],
      ['POST', '/v1/tools/calc/warnings', JSON.stringify({ text: 'Never pass \u0000.' }), '/text'],
      ['POST', '/v1/tools/calc/validate', JSON.stringify({ arguments: { 'n\u0000': 1 } }), '/arguments/n\\u0000'],
    ])('%s %s', async (method, path, rawBody, pointer) => {
      const response = await t.request(method, path, { rawBody, headers: json });
      expect(response.status).toBe(400);
      expect(response.body.error.details).toEqual([{ path: pointer, message: expect.stringMatching(/^(must|has a key that must) /) }]);
    });
  });

  describe('finding 9: ranges and cursors outside what Postgres stores are 400, not 500', () => {
    it.each([
      ['/v1/stats/overview?from=0001-01-01&to=0001-01-08', '/query/from'],
      ['/v1/stats/overview?from=0001-01-01T00:00:00Z&to=0001-01-02T00:00:00Z&bucket=hour', '/query/from'],
      ['/v1/stats/tools?from=0001-01-01&to=0001-02-01', '/query/from'],
      ['/v1/tools/calc/stats?from=9999-12-30&to=9999-12-31T12:00:00Z', '/query/to'],
      ['/v1/events?from=0000-01-01T00:00:00Z', '/query/from'],
      ['/v1/tools/calc/error-groups?from=0000-01-01', '/query/from'],
      [`/v1/events?cursor=${encodeCursor(['0000-01-01T00:00:00.000Z', 'x'])}`, '/query/cursor'],
      [`/v1/jobs?cursor=${encodeCursor(['0000-06-01T00:00:00.000Z', 'x'])}`, '/query/cursor'],
      [`/v1/events?cursor=${encodeCursor(['2026-01-01T00:00:00.000Z', 'a\u0000b'])}`, '/query/cursor'],
    ])('GET %s answers 400 naming %s', async (path, pointer) => {
      const response = await t.request('GET', path);
      expect(response.status).toBe(400);
      expect(response.body.error.details.map((detail: { path: string }) => detail.path)).toContain(pointer);
    });

    it('still answers the outermost ranges it stores', async () => {
      expect((await t.request('GET', '/v1/stats/overview?from=1970-01-01&to=1970-01-08')).status).toBe(200);
      expect((await t.request('GET', '/v1/tools/calc/stats?from=9999-12-01&to=9999-12-31')).status).toBe(200);
      expect((await t.request('GET', '/v1/events?from=1970-01-01T00:00:00Z&to=9999-12-31T23:59:59Z')).status).toBe(200);
    });
  });

  describe('finding 9: parameters named like Object.prototype members are judged by the arguments', () => {
    beforeAll(async () => {
      const parameters = {
        type: 'object',
        properties: { toString: { type: 'string' }, constructor: { type: 'integer' } },
        required: ['toString'],
        additionalProperties: false,
      };
      expect((await t.request('PUT', '/v1/tools/proto_names', { body: { description: 'd', parameters } })).status).toBeLessThan(300);
    });
    const validate = (args: unknown) => t.request('POST', '/v1/tools/proto_names/validate', { body: { arguments: args } });

    it('accepts arguments that give toString and leave constructor out', async () => {
      expect((await validate({ toString: 'x' })).body).toMatchObject({ valid: true });
    });

    it('reports a missing toString, which every object inherits', async () => {
      const response = await validate({});
      expect(response.body).toMatchObject({ valid: false, errors: [{ subtype: 'missing_argument', path: '/toString' }] });
    });

    it('suggests the parameter named constructor for a near miss', async () => {
      const response = await validate({ toString: 'x', construtor: 3 });
      expect(response.body.suggestion).toEqual({ toString: 'x', constructor: 3 });
    });
  });

  describe('finding 10: the dashboard, the docs and the API send CSP, X-Frame-Options and nosniff', () => {
    it.each([
      ['/dashboard', "style-src 'self'"],
      ['/dashboard/assets/app.js', "script-src 'self'"],
      ['/docs', "script-src 'self'"],
      ['/v1/tools', "default-src 'none'"],
      ['/v1/nowhere', "default-src 'none'"],
    ])('GET %s', async (path, policyPart) => {
      const response = await t.request('GET', path);
      expect(response.headers.get('content-security-policy')).toContain(policyPart);
      expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    });

    it('allows no inline script on the dashboard or the docs page', async () => {
      for (const path of ['/dashboard', '/docs']) {
        const response = await t.request('GET', path, { key: null });
        const policy = response.headers.get('content-security-policy') ?? '';
        expect(/script-src[^;]*unsafe-inline/.test(policy)).toBe(false);
        expect(String(response.body)).not.toMatch(/<script>(?!\s*<\/script>)/);
      }
    });
  });
});

describe('finding 10: wrong keys', () => {
  const proxy = new TcpProxy(5432);
  let t: TestApp;
  beforeAll(async () => {
    await proxy.start();
    t = await startTestApp({ AUTH_FAILURES_PER_MINUTE: '5' }, { databaseUrl: (url) => url.replace(':5432/', `:${proxy.port}/`) });
  });
  afterAll(async () => {
    proxy.restore();
    await t.close();
    await proxy.close();
  });

  it('refuses a repeated wrong key from memory: with Postgres cut off it is still a 401, not a 503', async () => {
    expect((await t.request('GET', '/v1/tools')).status).toBe(200);
    expect((await t.request('GET', '/v1/tools', { key: 'tc_wrong_but_repeated' })).status).toBe(401);
    proxy.cut();
    try {
      expect((await t.request('GET', '/v1/tools', { key: 'tc_wrong_but_repeated' })).status).toBe(401);
      expect((await t.request('POST', '/v1/events', { body: { tool: 't', status: 'success' } })).status).toBe(202);
      expect((await t.request('GET', '/v1/tools', { key: 'tc_never_seen_before' })).status).toBe(503);
    } finally {
      proxy.restore();
    }
  });

  it('refuses unknown keys from memory once the lookup budget is spent, never with 429, and still serves a valid key', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await t.request('GET', '/v1/tools', { key: `tc_guess_${i}` })).status);
    expect(new Set(statuses)).toEqual(new Set([401]));
    // Postgres cut off: a key beyond the budget is refused from the index of active keys, without asking
    proxy.cut();
    try {
      const refused = await t.request('POST', '/v1/events', { key: 'tc_guess_more', body: { tool: 't', status: 'success' } });
      expect(refused.status).toBe(401);
    } finally {
      proxy.restore();
    }
    expect((await t.request('GET', '/v1/tools')).status).toBe(200);
  });
});
