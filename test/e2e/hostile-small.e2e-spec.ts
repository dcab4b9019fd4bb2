import { encodeCursor } from '../../src/infra/http/cursor';
import { OpenApiDocument } from '../support/openapi-contract';
import { startTestApp, TestApp } from '../support/test-app';

// Finding 11 of issue 33, the smaller ones: forged cursors answered 500.

const TOOL = 'cursor_tool';
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
      expect.arrayContaining(['GET /v1/tools/{name}/error-groups', 'GET /v1/jobs', 'GET /v1/tools/{name}/version-history', 'GET /v1/events']),
    );
  });

  it('answers 400 naming /query/cursor, never 500, to every forged cursor on every cursor route', async () => {
    const wrong: string[] = [];
    for (const route of cursorRoutes) {
      const cases = ROUTES_WITH_TEXT_IDS.has(route) ? FORGED : [...FORGED, ['a text id where a uuid is compared', TEXT_ID_CURSOR]];
      for (const [label, cursor] of cases) {
        const response = await t.request('GET', `${pathOf(route)}?cursor=${encodeURIComponent(cursor)}`);
        const paths = (response.body?.error?.details ?? []).map((detail: { path: string }) => detail.path);
        if (response.status !== 400 || !paths.includes('/query/cursor')) wrong.push(`${route} ${label}: ${response.status} ${JSON.stringify(response.body)}`);
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
