import { encodeCursor } from '../../src/infra/http/cursor';
import { OpenApiDocument, registeredRoutes } from '../support/openapi-contract';
import { startTestApp, TestApp, untilWorkerIdle } from '../support/test-app';
import { ExportRequest, ExportResponse } from '../support/otlp-messages';

// Finding 11 of issue 33, the smaller ones: forged cursors answered 500.

const TOOL = 'cursor_tool';
/** Served without a key, the same to everyone: the document, its UI, the dashboard's files, probes, the favicon. */
const NOT_KEYED = [/^\/docs(\/|$)/, /^\/openapi\.(json|yaml)$/, /^\/dashboard(\/|$)/, /^\/$/, /^\/favicon\.ico$/, /^\/(healthz|readyz)$/];
const AT = '2026-03-01T10:00:00.000Z';
const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** Cursors no list issues; each must be a 400 naming /query/cursor on every route that takes one. */
const FORGED: Array<[string, string]> = [
  ['garbage that is not base64', '!!!not*base64!!!'],
  ['base64 of text that is not JSON', base64('{"oops')],
  ['base64 of JSON of another shape', encodeCursor({ at: AT, id: 1 })],
  ['a number where the instant goes', encodeCursor([1_700_000_000_000, 'x'])],
  ['a huge number', encodeCursor(1e20)],
  ['a huge offset', encodeCursor(['calls', 1e300])],
  ['a version past int4', encodeCursor(2_147_483_648)],
  ['a digit string past any score', encodeCursor('9'.repeat(400))],
  ['NUL in the id', encodeCursor([AT, 'a\u0000b'])],
  ['a date out of range', encodeCursor(['0000-01-01T00:00:00.000Z', '0b6f7a2e-3c1d-4e5f-8a9b-0c1d2e3f4a5b'])],
  ['a date past year 9999', encodeCursor(['+275760-09-13T00:00:00.000Z', '0b6f7a2e-3c1d-4e5f-8a9b-0c1d2e3f4a5b'])],
  ['an id longer than any stored', encodeCursor([AT, 'x'.repeat(129)])],
];

/** Valid in shape, but its id is not a uuid: the probe's 500 on error-groups and jobs (events' ids are text). */
const TEXT_ID_CURSOR = encodeCursor([AT, 'not-a-uuid']);
const ROUTES_WITH_TEXT_IDS = new Set(['GET /v1/events']);

describe('finding 11: forged cursors', () => {
  let t: TestApp;
  let cursorRoutes: string[];
  beforeAll(async () => {
    t = await startTestApp();
    const tool = { description: 'A tool with versions.', parameters: { type: 'object', properties: { a: { type: 'string' } } } };
    expect((await t.request('PUT', `/v1/tools/${TOOL}`, { body: tool })).status).toBe(201);
    const document: OpenApiDocument = (await t.request('GET', '/openapi.json', { key: null })).body;
    cursorRoutes = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => operation.parameters?.some((parameter) => parameter.in === 'query' && parameter.name === 'cursor'))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
  });
  afterAll(() => t.close());

  const pathOf = (route: string) => route.split(' ')[1].replace(/\{name\}/g, TOOL);

  it('finds every list route that takes a cursor in the API document', () => {
    expect(cursorRoutes).toEqual(
      expect.arrayContaining([
        'GET /v1/tools/{name}/error-groups',
        'GET /v1/jobs',
        'GET /v1/tools/{name}/version-history',
        'GET /v1/events',
        'GET /v1/tools',
      ]),
    );
  });

  it('answers 400 naming /query/cursor, never 500, to every forged cursor on every cursor route', async () => {
    const wrong: string[] = [];
    for (const route of cursorRoutes) {
      const cases = ROUTES_WITH_TEXT_IDS.has(route) ? FORGED : [...FORGED, ['a text id where a uuid is compared', TEXT_ID_CURSOR]];
      for (const [label, cursor] of cases) {
        const response = await t.request('GET', `${pathOf(route)}?cursor=${encodeURIComponent(cursor)}`);
        const paths = (response.body?.error?.details ?? []).map((detail: { path: string }) => detail.path);
        if (response.status !== 400 || !paths.includes('/query/cursor'))
          wrong.push(`${route} ${label}: ${response.status} ${JSON.stringify(response.body)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('still pages with the cursors the lists issue', async () => {
    for (const route of cursorRoutes) {
      const first = await t.request('GET', `${pathOf(route)}?limit=1`);
      expect([route, first.status]).toEqual([route, 200]);
      if (first.body.nextCursor) {
        const next = await t.request('GET', `${pathOf(route)}?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`);
        expect([route, next.status]).toEqual([route, 200]);
      }
    }
  });
});

describe('finding 11: answers that depend on the key are private', () => {
  let t: TestApp;
  let routes: string[];
  beforeAll(async () => {
    t = await startTestApp({ ROLES: 'api' });
    routes = registeredRoutes(t.app).filter((route) => !NOT_KEYED.some((pattern) => pattern.test(route.split(' ')[1])));
    const tool = { description: 'A tool whose answers are cached.', parameters: { type: 'object' } };
    expect((await t.request('PUT', `/v1/tools/${TOOL}`, { body: tool })).status).toBe(201);
  });
  afterAll(() => t.close());

  it('says Cache-Control private on every answer of every keyed route, successes and refusals alike', async () => {
    expect(routes.length).toBeGreaterThan(30);
    const wrong: string[] = [];
    for (const route of routes) {
      const [method, template] = route.split(' ');
      // a tool of no one: the walk must not delete the one the next test reads
      const path = template.replace(/\{name\}/g, 'no_such_tool').replace(/\{(\w+)\}/g, '00000000-0000-4000-8000-000000000000');
      for (const key of [undefined, 'tc_wrong_key']) {
        const response = await t.request(method, path, { key, body: method === 'GET' || method === 'DELETE' ? undefined : {} });
        const cacheControl = response.headers.get('cache-control') ?? '';
        if (!/\bprivate\b/.test(cacheControl))
          wrong.push(`${route} (${response.status}, key ${key ?? 'valid'}): ${cacheControl || 'none'}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('keeps revalidation of the tool list and descriptions: private, with an ETag and 304', async () => {
    for (const path of ['/v1/tools', `/v1/tools/${TOOL}/description`]) {
      const first = await t.request('GET', path);
      expect(first.status).toBe(200);
      expect(first.headers.get('cache-control')).toBe('private, max-age=60, stale-while-revalidate=300');
      const etag = first.headers.get('etag')!;
      const again = await t.request('GET', path, { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
      expect(again.headers.get('cache-control')).toMatch(/\bprivate\b/);
    }
  });

  it('leaves public pages and probes cacheable as they were', async () => {
    expect((await t.request('GET', '/favicon.ico', { key: null })).headers.get('cache-control')).toBe('public, max-age=86400');
    expect((await t.request('GET', '/healthz', { key: null })).headers.get('cache-control')).toBeNull();
  });
});

describe('finding 11: alert destinations on a server that does not allow private ones', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ROLES: 'api' });
  });
  afterAll(() => t.close());

  const create = (url: string) => t.request('POST', '/v1/alerts/destinations', { body: { name: 'x', kind: 'webhook', url } });

  it.each([
    ['IPv4-translated loopback (the probe: ::ffff:0:0:0/96)', 'http://[::ffff:0:7f00:1]:9/hook'],
    ['local-use NAT64 (the probe: 64:ff9b:1::/48)', 'http://[64:ff9b:1::a9fe:a9fe]/latest/meta-data'],
    ['Teredo (the probe: 2001::/32) whose client is loopback', 'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:9/hook'],
    ['IPv4-translated metadata address', 'http://[::ffff:0:a9fe:a9fe]/latest/meta-data'],
    ['NAT64 of a private address', 'http://[64:ff9b::a00:8]/hook'],
    ['6to4 of a private address', 'http://[2002:c0a8:101::1]/hook'],
    ['documentation 2001:db8::/32', 'http://[2001:db8::1]/hook'],
    ['TEST-NET-3', 'http://203.0.113.9/hook'],
    ['benchmarking 198.18.0.0/15', 'http://198.18.0.1/hook'],
  ])('refuses %s with 400 invalid_destination naming /url', async (_case, url) => {
    const response = await create(url);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({
      code: 'invalid_destination',
      details: [{ path: '/url', message: expect.stringContaining('private destinations are not allowed') }],
    });
  });

  it('refuses a name that resolves to a non-public address without saying which address the server resolved', async () => {
    const response = await create('http://localhost:9/hook');
    expect(response.status).toBe(400);
    const message: string = response.body.error.details[0].message;
    expect(message).toBe('localhost resolves to a non-public address; private destinations are not allowed on this server');
    expect(JSON.stringify(response.body)).not.toMatch(/127\.0\.0\.1|::1|loopback/);
  });
});

describe('finding 11: an OTLP protobuf span holding text that is not UTF-8', () => {
  const TRACE_ID = 'd'.repeat(32);
  const now = BigInt(Date.now()) * 1_000_000n;

  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  /** Tool spans, named by their id suffix; `MARK` in any of their text is then overwritten with `bad` bytes. */
  function exportWith(spans: Array<{ id: string; tool: string; args: string }>, bad: number[], resourceName = 'hostile-agent'): Buffer {
    const message = ExportRequest.fromObject({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: resourceName } }] },
          scopeSpans: [
            {
              spans: spans.map(({ id, tool, args }) => ({
                traceId: Buffer.from(TRACE_ID, 'hex'),
                spanId: Buffer.from(id.padStart(16, '0'), 'hex'),
                name: `execute_tool ${tool}`,
                startTimeUnixNano: String(now),
                endTimeUnixNano: String(now + 1_000_000n),
                attributes: [
                  { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
                  { key: 'gen_ai.tool.name', value: { stringValue: tool } },
                  { key: 'gen_ai.tool.call.arguments', value: { stringValue: args } },
                ],
              })),
            },
          ],
        },
      ],
    });
    const bytes = Buffer.from(ExportRequest.encode(message).finish());
    for (let at = bytes.indexOf('MARK'); at >= 0; at = bytes.indexOf('MARK', at + 1)) Buffer.from(bad).copy(bytes, at);
    return bytes;
  }

  async function post(body: Buffer) {
    const response = await fetch(`${t.baseUrl}/v1/traces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/x-protobuf' },
      body,
    });
    const bytes = new Uint8Array(await response.arrayBuffer());
    return {
      status: response.status,
      body: response.status === 200 ? ExportResponse.toObject(ExportResponse.decode(bytes), { longs: Number }) : null,
    };
  }

  const storedIds = async () => {
    await untilWorkerIdle(t);
    const { rows } = await t.db.sql.query<{ id: string }>('SELECT id FROM events ORDER BY id');
    return rows.map((row) => row.id);
  };
  const eventId = (id: string) => `otel:${TRACE_ID}:${id.padStart(16, '0')}`;

  it('keeps the good spans and reports the bad one as rejected (the probe: a byte 0xff in an argument)', async () => {
    const spans = [
      { id: 'a1', tool: 'good_one', args: '{"city":"Oslo"}' },
      { id: 'a2', tool: 'bad_one', args: '{"city":"MARK"}' },
      { id: 'a3', tool: 'good_two', args: '{"n":3}' },
    ];
    const answer = await post(exportWith(spans, [0x4f, 0xff, 0x73, 0x6c]));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      partialSuccess: {
        rejectedSpans: 1,
        errorMessage: expect.stringContaining('/resourceSpans/0/scopeSpans/0/spans/1: holds text that is not valid UTF-8 at /attributes/2'),
      },
    });
    expect(await storedIds()).toEqual([eventId('a1'), eventId('a3')]);
  });

  it('does the same for an encoded surrogate in a tool name, and for a sequence cut short', async () => {
    const surrogate = await post(
      exportWith(
        [
          { id: 'b1', tool: 'tool_MARK', args: '{}' },
          { id: 'b2', tool: 'fine', args: '{}' },
        ],
        [0xed, 0xa0, 0x80, 0x41],
      ),
    );
    expect(surrogate.body?.partialSuccess?.rejectedSpans).toBe(1);
    const cut = await post(
      exportWith(
        [
          { id: 'c1', tool: 'fine_too', args: '{}' },
          { id: 'c2', tool: 'cut', args: '"MARK"' },
        ],
        [0x41, 0x42, 0x43, 0xe2],
      ),
    );
    expect(cut.body?.partialSuccess?.rejectedSpans).toBe(1);
    expect(await storedIds()).toEqual(expect.arrayContaining([eventId('b2'), eventId('c1')]));
    expect(await storedIds()).not.toEqual(expect.arrayContaining([eventId('b1')]));
    expect(await storedIds()).not.toEqual(expect.arrayContaining([eventId('c2')]));
  });

  it('rejects every span under a resource whose text is not UTF-8, with 200 and a partial success', async () => {
    const answer = await post(
      exportWith(
        [
          { id: 'd1', tool: 'x', args: '{}' },
          { id: 'd2', tool: 'y', args: '{}' },
        ],
        [0xc0, 0xaf, 0x41, 0x41],
        'agent-MARK',
      ),
    );
    expect(answer.status).toBe(200);
    expect(answer.body?.partialSuccess?.rejectedSpans).toBe(2);
  });
});
