import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { Toolcoach, ToolcoachOptions } from '../src';
import { closedPortUrl, ScriptedServer } from './scripted-server';

let server: ScriptedServer;
let cacheDir: string;
const clients: Toolcoach[] = [];
const warn = jest.fn();

function client(options: Partial<ToolcoachOptions> = {}): Toolcoach {
  const tc = new Toolcoach({ baseUrl: server.baseUrl, apiKey: 'tc_test', cacheDir, flushOnExit: false, logger: { warn }, ...options });
  clients.push(tc);
  return tc;
}

const tools = () => [
  { name: 'prime_factorization', description: 'Factor an integer.', schema: z.object({ number: z.number().int().max(1_000_000) }) },
  { name: 'factorial', description: 'n!', parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } },
];

/** Answers like the registry: bulk registration, then the served (augmented) descriptions. */
/** Gives `tc` the description cache of `other` (a private field): the two stand for two starts of one agent. */
function withCacheOf(tc: Toolcoach, other: Toolcoach): void {
  (tc as unknown as { cache: unknown }).cache = (other as unknown as { cache: unknown }).cache;
}

function serveRegistry(version = 2) {
  server.answerOtherwise((request) => {
    if (request.url === '/v1/tools:bulk')
      return {
        status: 200,
        body: { tools: request.body.tools.map((t: { name: string }) => ({ name: t.name, version, status: 'updated' })) },
      };
    if (request.url === '/v1/tools?format=raw') {
      const registered = server.requests.find((r) => r.url === '/v1/tools:bulk')!.body.tools;
      return {
        status: 200,
        body: {
          format: 'raw',
          tools: registered.map((t: { name: string; description: string; parameters: unknown }) => ({
            name: t.name,
            version,
            baseDescription: t.description,
            description: `${t.description}\nWARNING: pass one integer.`,
            warnings: [],
            parameters: t.parameters,
          })),
        },
      };
    }
    return { status: 404 };
  });
}

beforeEach(async () => {
  server = await ScriptedServer.start();
  cacheDir = mkdtempSync(join(tmpdir(), 'toolcoach-sdk-'));
  warn.mockReset();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((tc) => tc.shutdown(50)));
  await server.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

describe('loadTools', () => {
  it('registers the tools with their JSON Schemas and returns them with the served descriptions and versions', async () => {
    serveRegistry(2);
    const tc = client();
    const given = tools();
    const loaded = await tc.loadTools(given);
    expect(loaded[0]).toBe(given[0]);
    expect(loaded.map((t) => t.description)).toEqual(['Factor an integer.\nWARNING: pass one integer.', 'n!\nWARNING: pass one integer.']);
    expect(tc.descriptionVersionOf('prime_factorization')).toBe(2);
    expect(tc.descriptionSource).toBe('server');
    const bulk = server.requests.find((r) => r.url === '/v1/tools:bulk')!.body.tools;
    expect(bulk[0]).toMatchObject({
      name: 'prime_factorization',
      description: 'Factor an integer.',
      parameters: { type: 'object', properties: { number: { type: 'integer', maximum: 1_000_000 } }, required: ['number'] },
    });
    expect(bulk[1].parameters).toEqual(given[1].parameters);
  });

  it('sends its sticky id for guarded rollout on every registry request: the session, else the agent, else none', async () => {
    serveRegistry();
    const stickyOf = (url: string) => {
      const request = server.requests.filter((r) => r.url === url).at(-1)!;
      return [request.headers['x-toolcoach-session'], request.headers['x-toolcoach-agent']];
    };
    await client({ session: 's-42', agent: 'math-agent' }).loadTools(tools());
    expect(stickyOf('/v1/tools:bulk')).toEqual(['s-42', undefined]);
    expect(stickyOf('/v1/tools?format=raw')).toEqual(['s-42', undefined]);
    await client({ agent: 'math-agent' }).loadTools(tools());
    expect(stickyOf('/v1/tools?format=raw')).toEqual([undefined, 'math-agent']);
    await client().loadTools(tools());
    expect(stickyOf('/v1/tools?format=raw')).toEqual([undefined, undefined]);
  });

  it('follows nextCursor through every page of GET /v1/tools, and polls only the first page with the ETag of the whole list', async () => {
    let version = 2;
    const etag = () => `"list-${version}"`;
    // one tool a page, as a server answers a project whose tools do not fit in one page
    server.answerOtherwise((request) => {
      if (request.url === '/v1/tools:bulk') return { status: 200, body: { tools: [] } };
      const url = new URL(request.url, 'http://x');
      if (url.pathname !== '/v1/tools') return { status: 404 };
      if (request.headers['if-none-match'] === etag()) return { status: 304, headers: { etag: etag() } };
      const names = ['factorial', 'prime_factorization'];
      const index = url.searchParams.has('cursor') ? names.indexOf(url.searchParams.get('cursor')!) + 1 : 0;
      const tool = { name: names[index], version, description: `${names[index]} v${version}`, warnings: [] };
      return {
        status: 200,
        headers: { etag: etag() },
        body: { format: 'raw', tools: [tool], notes: [], quality: [], nextCursor: index + 1 < names.length ? names[index] : null },
      };
    });
    const tc = client({ refreshIntervalMs: false });
    const loaded = await tc.loadTools(tools());
    expect(loaded.map((t) => t.description)).toEqual(['prime_factorization v2', 'factorial v2']);
    const pageUrls = () => server.requests.filter((r) => r.url.startsWith('/v1/tools?')).map((r) => [r.url, r.headers['if-none-match']]);
    expect(pageUrls()).toEqual([
      ['/v1/tools?format=raw', undefined],
      ['/v1/tools?format=raw&cursor=factorial', undefined],
    ]);

    expect(await tc.refreshDescriptions()).toBe(false);
    expect(pageUrls().slice(2)).toEqual([['/v1/tools?format=raw', '"list-2"']]);
    version = 3;
    expect(await tc.refreshDescriptions()).toBe(true);
    expect(loaded.map((t) => t.description)).toEqual(['prime_factorization v3', 'factorial v3']);
    expect(pageUrls().slice(3)).toEqual([
      ['/v1/tools?format=raw', '"list-2"'],
      ['/v1/tools?format=raw&cursor=factorial', undefined],
    ]);
  });

  it('registers the original description again, never the served one, when loading twice', async () => {
    serveRegistry();
    const tc = client();
    const given = tools();
    await tc.loadTools(given);
    await tc.loadTools(given);
    const bulks = server.requests.filter((r) => r.url === '/v1/tools:bulk');
    expect(bulks[1].body.tools[0].description).toBe('Factor an integer.');
  });

  it('falls back to the copy cached on disk when the server is unreachable, and says so once', async () => {
    serveRegistry(4);
    await client().loadTools(tools());
    const offline = client({ baseUrl: server.baseUrl });
    await server.close();
    server = await ScriptedServer.start();
    server.answerOtherwise(() => ({ status: 503 }));
    const tc = client({ baseUrl: server.baseUrl });
    // Same server URL and key as the first start, so the same cache file.
    withCacheOf(tc, offline);
    const loaded = await tc.loadTools(tools());
    expect(loaded[0].description).toContain('WARNING');
    expect(tc.descriptionVersionOf('prime_factorization')).toBe(4);
    expect(tc.descriptionSource).toBe('cache');
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toMatch(/could not load tool descriptions .*cached on disk/);
  });

  it('does not apply a cached description to a tool whose own description changed since', async () => {
    serveRegistry();
    const first = client();
    await first.loadTools(tools());
    const tc = client({ baseUrl: await closedPortUrl() });
    withCacheOf(tc, first);
    const changed = tools();
    changed[0].description = 'Factor a positive integer.';
    const loaded = await tc.loadTools(changed);
    expect(loaded[0].description).toBe('Factor a positive integer.');
    expect(loaded[1].description).toContain('WARNING');
  });

  it('gives up on a slow server after the timeout and uses the tools as given', async () => {
    server.answerOtherwise(() => ({ status: 200, delayMs: 3000, body: {} }));
    const tc = client({ startupTimeoutMs: 200 });
    const startedAt = Date.now();
    const loaded = await tc.loadTools(tools());
    expect(Date.now() - startedAt).toBeLessThan(1000);
    expect(loaded.map((t) => t.description)).toEqual(['Factor an integer.', 'n!']);
    expect(tc.descriptionSource).toBe('given');
    expect(tc.descriptionVersionOf('factorial')).toBeUndefined();
    expect(warn.mock.calls[0][0]).toMatch(/timed out.*as given/);
  });
});

describe('validate', () => {
  it('returns the server verdict', async () => {
    server.answerNext({
      status: 200,
      body: {
        valid: false,
        errors: [{ category: 'argument_mismatch', subtype: 'unknown_argument', path: '/numbers', message: 'x' }],
        suggestion: { number: 12 },
      },
    });
    const verdict = await client().validate('prime_factorization', { numbers: [12] });
    expect(server.requests[0]).toMatchObject({
      method: 'POST',
      url: '/v1/tools/prime_factorization/validate',
      body: { arguments: { numbers: [12] } },
    });
    expect(verdict).toMatchObject({ valid: false, checked: true, suggestion: { number: 12 } });
  });

  it("keeps the server's checked: false when its schema could not check the arguments in time and there is no local guard", async () => {
    const reason = "schema too expensive: the tool's schema cannot check these arguments within 25 ms; they were not checked";
    server.answerNext({ status: 200, body: { valid: true, errors: [], suggestion: null, checked: false, reason } });
    expect(await client().validate('parse', { text: 'x' })).toMatchObject({
      valid: true,
      checked: false,
      checkedBy: null,
      reason: `not checked: ${reason}`,
    });
  });

  it('lets the arguments through, marked not checked, when the server cannot answer and there is no local guard', async () => {
    const verdict = await client({ baseUrl: await closedPortUrl() }).validate('factorial', { n: 3 });
    expect(verdict).toEqual({
      valid: true,
      errors: [],
      suggestion: null,
      checked: false,
      checkedBy: null,
      reason: expect.stringMatching(/^not checked: /),
    });
  });

  describe('issue 33: checked: false and 4xx are "not checked", then the local guard checks', () => {
    const guardedClient = async () => {
      serveRegistry();
      const tc = client();
      await tc.loadTools(tools(), { guard: true });
      return tc;
    };

    it.each([
      [
        'checked: false',
        { status: 200, body: { valid: true, errors: [], suggestion: null, checked: false, reason: 'schema too expensive' } },
      ],
      ['a 400', { status: 400, body: { error: { code: 'invalid_body', message: 'Invalid body', details: [] } } }],
      ['a 413', { status: 413, body: { error: { code: 'body_too_large', message: 'too large', details: [] } } }],
      ['a 429', { status: 429, body: { error: { code: 'rate_limited', message: 'slow down', details: [] } } }],
    ])('after %s, refuses what the local schema refuses, never counting it valid', async (_, answer) => {
      const tc = await guardedClient();
      server.answerNext(answer);
      const verdict = await tc.validate('factorial', JSON.parse('{"__proto__": 3}'));
      expect(verdict).toMatchObject({
        valid: false,
        checked: true,
        checkedBy: 'local',
        reason: expect.stringMatching(/^not checked by the server \(.+\); checked by the local guard$/),
        // validate's findings and correction, made locally (the guard core's)
        errors: [
          expect.objectContaining({ subtype: 'missing_argument', path: '/n', message: "'n' is required; it was sent as '__proto__'" }),
          expect.objectContaining({ subtype: 'unknown_argument', path: '/__proto__' }),
        ],
        suggestion: { n: 3 },
      });
      server.answerNext(answer);
      expect(await tc.validate('factorial', { n: 3 })).toMatchObject({ valid: true, checked: true, checkedBy: 'local' });
    });

    it('keeps the server verdict when the server checked', async () => {
      const tc = await guardedClient();
      server.answerNext({ status: 200, body: { valid: true, errors: [], suggestion: null, checked: true, reason: null } });
      expect(await tc.validate('factorial', { n: 3 })).toMatchObject({ valid: true, checked: true, checkedBy: 'server' });
    });
  });
});
