import { readFileSync } from 'node:fs';
import { Toolcoach } from '@toolcoach/sdk';
import { AppProcess, freePort, spawnApp } from '../support/app-process';
import { eventually, startTestApp, TestApp } from '../support/test-app';
import { anErrorEvent, anEvent } from '../factories/event.factory';

/**
 * Issue 33, finding 5: `arguments` had no size limit of its own and list routes read 200 full rows, so four concurrent
 * `GET /v1/events?limit=200` ended a 1 GB heap; a project could register any number of tools, and `GET /v1/tools`
 * answered them all at once (1,000 tools: 12 MB). Now stored arguments are bounded (a marked preview), every list page,
 * the tools list's included, is bounded in bytes as well as rows, and tools per project are capped.
 */

const MB = 1024 * 1024;
const MAX_TOOLS = 1000;
/** Rows stored with 1 MB of arguments each, as events stored before the cap may be: what the lists must still bound. */
const LARGE_ROWS = 80;
const CONCURRENT_REQUESTS = 8;
/** The heap the probe's process had, and the peak RSS we hold it to while the lists are read at once. */
const HEAP_MB = 1024;
const MAX_PEAK_RSS_MB = 900;

jest.setTimeout(300_000);

describe('sizes bounded at rest and in answers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ MAX_TOOLS_PER_PROJECT: String(MAX_TOOLS) });
  });
  afterAll(() => t?.close());

  const storedArguments = async (id: string) => (await t.request('GET', `/v1/events/${id}`)).body.arguments;

  it('stores arguments over 8 KB as a marked preview, diagnosed on the whole arguments first', async () => {
    // the argument the message is about comes after 200 KB of other arguments
    const large = anErrorEvent('limit must be less than or equal to 100', {
      id: 'large-args-object',
      tool: 'search',
      arguments: { query: 'q'.repeat(200_000), limit: 500 },
    });
    const text = anEvent({ id: 'large-args-text', arguments: JSON.stringify({ note: 'é'.repeat(40_000) }) });
    const small = anEvent({ id: 'small-args', arguments: { city: 'Paris', days: 3 } });
    expect((await t.request('POST', '/v1/events', { body: { events: [large, text, small] } })).status).toBe(202);

    const stored = await t.storedEvent('large-args-object');
    expect(stored.argumentPath).toBe('/limit');
    expect(stored.offendingValue).toBe(500);
    const cut = await storedArguments('large-args-object');
    expect(cut).toEqual({ $truncated: true, bytes: JSON.stringify(large.arguments).length, preview: expect.any(String) });
    expect(cut.preview.startsWith('{"query":"qqq')).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(cut))).toBeLessThanOrEqual(8 * 1024);

    await t.storedEvent('large-args-text');
    const cutText = await storedArguments('large-args-text');
    expect(cutText.$truncated).toBe(true);
    expect(cutText.bytes).toBe(Buffer.byteLength(JSON.stringify(text.arguments)));
    expect(Buffer.byteLength(JSON.stringify(cutText))).toBeLessThanOrEqual(8 * 1024);

    await t.storedEvent('small-args');
    expect(await storedArguments('small-args')).toEqual({ city: 'Paris', days: 3 });
  });

  describe('list routes of a project holding large rows and many tools', () => {
    let app: AppProcess;
    let baseUrl: string;
    let listedTools: Array<{ name: string; description: string; parameters: Record<string, unknown> }>;

    beforeAll(async () => {
      // rows as events stored before arguments were capped: 1 MB of arguments each (written directly, as they were)
      await t.db.sql.query(
        `INSERT INTO events (project_id, id, tool, status, arguments, error_type, error_message, error_stack, prompt, occurred_at, received_at)
         SELECT $1, 'big-' || i, 'search', CASE WHEN i % 2 = 0 THEN 'error' ELSE 'success' END,
           jsonb_build_object('blob', repeat(md5(i::text), 32768)),
           CASE WHEN i % 2 = 0 THEN 'ValueError' END,
           CASE WHEN i % 2 = 0 THEN repeat('long message ', 600) END,
           CASE WHEN i % 2 = 0 THEN repeat('at frame (file.js:1:1)' || chr(10), 700) END,
           repeat('prompt ', 290), now() - i * interval '1 second', now()
         FROM generate_series(1, ${LARGE_ROWS}) AS i`,
        [t.projectId],
      );
      await t.db.sql.query(
        `INSERT INTO event_ids (project_id, id, received_at) SELECT project_id, id, received_at FROM events WHERE project_id = $1 AND id LIKE 'big-%'`,
        [t.projectId],
      );
      const schema = {
        type: 'object',
        properties: Object.fromEntries(
          Array.from({ length: 40 }, (_, i) => [`argument_${i}`, { type: 'string', description: 'd'.repeat(200) }]),
        ),
      };
      // 12 KB each as the tools list answers them: 50 a request stay under the 1 MB body limit
      listedTools = Array.from({ length: MAX_TOOLS }, (_, i) => ({
        name: `listed_${i}`,
        description: 'A tool. '.repeat(100),
        parameters: schema,
      }));
      for (let start = 0; start < MAX_TOOLS; start += 50) {
        const tools = listedTools.slice(start, start + 50);
        const registered = await t.request('POST', '/v1/tools:bulk', { body: { tools } });
        // the body says why, should a registration be refused
        expect({ status: registered.status, error: registered.body.error }).toEqual({ status: 200, error: undefined });
      }

      const port = await freePort();
      app = spawnApp(
        {
          DATABASE_URL: t.db.url,
          REDIS_URL: t.config.redisUrl,
          QUEUE_PREFIX: t.config.queuePrefix,
          ROLES: 'api',
          MIGRATE_ON_START: 'false',
          RATE_LIMIT_REQUESTS: '0',
          PORT: String(port),
          HOST: '127.0.0.1',
        },
        [`--max-old-space-size=${HEAP_MB}`],
      );
      baseUrl = `http://127.0.0.1:${port}`;
      // a busy machine (the bulk registrations above) can take a while to start a process
      await eventually(async () => ((await fetch(`${baseUrl}/healthz`).catch(() => null))?.ok ? true : undefined), 90_000).catch(
        (error) => {
          throw new Error(`${error.message}; the app printed:\n${app.output().slice(-2000)}`);
        },
      );
    });

    afterAll(async () => {
      if (app && app.child.exitCode === null) {
        app.child.kill('SIGTERM');
        await app.exited;
      }
    });

    const get = (path: string) => fetch(baseUrl + path, { headers: { authorization: `Bearer ${t.apiKey}` } });
    const peakRssMb = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${app.child.pid}/status`, 'utf8'))![1]) / 1024;

    it('pages the events list by bytes as well as rows, cutting old large arguments in Postgres, and reaches every row', async () => {
      const seen = new Set<string>();
      let cursor: string | null = null;
      let pages = 0;
      do {
        const response = await get(`/v1/events?limit=200&tool=search${cursor ? `&cursor=${cursor}` : ''}`);
        expect(response.status).toBe(200);
        const text = await response.text();
        expect(text.length).toBeLessThanOrEqual(1.1 * MB);
        const body = JSON.parse(text) as {
          items: Array<{ id: string; arguments: { $truncated?: boolean; bytes?: number } }>;
          nextCursor: string | null;
        };
        for (const item of body.items) {
          if (item.id.startsWith('big-')) expect(item.arguments).toMatchObject({ $truncated: true, bytes: 32 * 32768 + 12 });
          seen.add(item.id);
        }
        cursor = body.nextCursor;
        pages += 1;
      } while (cursor);
      expect([...seen].filter((id) => id.startsWith('big-'))).toHaveLength(LARGE_ROWS);
      expect(pages).toBeGreaterThan(Math.ceil(LARGE_ROWS / 200));
      // one event answers its stored arguments whole
      expect(((await (await get('/v1/events/big-1')).json()) as { arguments: { blob: string } }).arguments.blob).toHaveLength(32 * 32768);
    });

    /** Every page of `GET /v1/tools` from `query` on, by nextCursor: the tools' names, each page's size and ETag. */
    async function readEveryToolPage(query: string) {
      const names: string[] = [];
      const pages: Array<{ bytes: number; etag: string | null; tools: number }> = [];
      let cursor: string | null = null;
      do {
        const response = await get(`/v1/tools?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(response.status).toBe(200);
        const text = await response.text();
        const body = JSON.parse(text) as { tools: Array<{ name: string }>; quality: Array<{ tool: string }>; nextCursor: string | null };
        // each page lists its own tools' quality reports
        expect(body.quality.map((report) => report.tool).sort()).toEqual(body.tools.map((tool) => tool.name).sort());
        names.push(...body.tools.map((tool) => tool.name));
        pages.push({ bytes: Buffer.byteLength(text), etag: response.headers.get('etag'), tools: body.tools.length });
        cursor = body.nextCursor;
      } while (cursor);
      return { names, pages };
    }

    it('pages the tools list by bytes as well as rows: every tool once, each page under 1.1 MB, one ETag for the whole list', async () => {
      const { names, pages } = await readEveryToolPage('format=raw');
      expect(names).toHaveLength(MAX_TOOLS);
      expect(new Set(names)).toEqual(new Set(listedTools.map((tool) => tool.name)));
      expect(pages.length).toBeGreaterThan(10);
      for (const page of pages) expect(page.bytes).toBeLessThanOrEqual(1.1 * MB);
      const [etag] = new Set(pages.map((page) => page.etag));
      expect(pages.every((page) => page.etag === etag)).toBe(true);
      // asked again with that ETag, the first page says that no page changed
      const again = await fetch(`${baseUrl}/v1/tools?format=raw`, {
        headers: { authorization: `Bearer ${t.apiKey}`, 'if-none-match': etag! },
      });
      expect(again.status).toBe(304);
      // a page of the named tools only, by name in code-unit order, `limit` at a time
      const named = await readEveryToolPage('names=listed_999,listed_7,no_such_tool,listed_10&limit=2');
      expect(named.names).toEqual(['listed_10', 'listed_7', 'listed_999']);
      expect(named.pages.map((page) => page.tools)).toEqual([2, 1]);
    });

    it("loads every tool's live description through the TypeScript SDK, the last page's included", async () => {
      const authorization = `Bearer ${t.apiKey}`;
      const firstEtag = async () => (await fetch(`${baseUrl}/v1/tools`, { headers: { authorization } })).headers.get('etag');
      const before = await firstEtag();
      const warning = 'Pass the city name only, never a street address.';
      const lastTool = listedTools[listedTools.length - 1].name;
      expect((await t.request('POST', `/v1/tools/${lastTool}/warnings`, { body: { text: warning } })).status).toBe(201);
      await eventually(async () => ((await firstEtag()) !== before ? true : undefined), 30_000);

      const tc = new Toolcoach({
        baseUrl,
        apiKey: t.apiKey,
        cacheDir: false,
        refreshIntervalMs: false,
        flushOnExit: false,
        startupTimeoutMs: 120_000,
      });
      try {
        const given = listedTools.map((tool) => ({ ...tool }));
        const loaded = await tc.loadTools(given);
        expect(tc.descriptionSource).toBe('server');
        const warned = loaded.filter((tool) => tool.description.includes(warning)).map((tool) => tool.name);
        expect(warned).toEqual([lastTool]);
        expect(tc.descriptionVersionOf(lastTool)).toBe(2);
        expect(listedTools.every((tool) => tc.descriptionVersionOf(tool.name) !== undefined)).toBe(true);
      } finally {
        await tc.shutdown(100);
      }
    });

    it(`stays up while ${CONCURRENT_REQUESTS} clients read every page of a tools list not built yet, on a 1 GB heap`, async () => {
      const started = Date.now();
      // no test here asked for the mcp shape before: the first pages all find the list unbuilt
      const walks = await Promise.all(Array.from({ length: CONCURRENT_REQUESTS }, () => readEveryToolPage('format=mcp')));
      for (const walk of walks) expect(walk.names).toHaveLength(MAX_TOOLS);
      expect(app.child.exitCode).toBeNull();
      const peak = peakRssMb();
      console.log(
        `tools, every page: ${CONCURRENT_REQUESTS} clients at once in ${Date.now() - started} ms, peak RSS so far ${Math.round(peak)} MB`,
      );
      expect(peak).toBeLessThan(MAX_PEAK_RSS_MB);
    });

    it.each([
      ['events', '/v1/events?limit=200'],
      ['events of a tool', '/v1/events?limit=200&tool=search&status=error'],
      ['export', '/v1/events/export?limit=300'],
      ['error groups', '/v1/tools/search/error-groups?limit=200'],
      ['version history', '/v1/tools/listed_1/version-history?limit=200'],
      ['recommendations', '/v1/recommendations?limit=200'],
      ['tools', '/v1/tools'],
      ['jobs', '/v1/jobs?limit=200'],
    ])(`stays up under ${CONCURRENT_REQUESTS} concurrent requests of the %s list on a 1 GB heap`, async (_name, path) => {
      const started = Date.now();
      const statuses = await Promise.all(
        Array.from({ length: CONCURRENT_REQUESTS }, async () => {
          const response = await get(path);
          await response.arrayBuffer();
          return response.status;
        }),
      );
      expect(statuses).toEqual(Array(CONCURRENT_REQUESTS).fill(200));
      expect(app.child.exitCode).toBeNull();
      expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
      const peak = peakRssMb();
      console.log(`${path}: ${CONCURRENT_REQUESTS} at once in ${Date.now() - started} ms, peak RSS so far ${Math.round(peak)} MB`);
      expect(peak).toBeLessThan(MAX_PEAK_RSS_MB);
    });

    // the project holds MAX_TOOLS tools now (beforeAll): the cap, tested last so the lists above read them unchanged
    it('refuses a tool past MAX_TOOLS_PER_PROJECT with 409 naming the cap, one by one and in bulk, and still updates existing ones', async () => {
      const tool = (name: string) => ({ name, description: `Tool ${name}`, parameters: { type: 'object' } });
      const past = await t.request('PUT', '/v1/tools/one_too_many', { body: { description: 'x', parameters: { type: 'object' } } });
      expect(past.status).toBe(409);
      expect(past.body.error.code).toBe('tool_limit_reached');
      expect(past.body.error.message).toContain(`at most ${MAX_TOOLS} tools (MAX_TOOLS_PER_PROJECT)`);
      expect(past.body.error.details).toEqual([{ path: '/name', message: `would take the project past ${MAX_TOOLS} tools` }]);

      // one existing and one new: refused before the existing one is updated
      const bulk = await t.request('POST', '/v1/tools:bulk', {
        body: { tools: [{ ...tool('listed_0'), description: 'changed' }, tool('also_too_many')] },
      });
      expect(bulk.status).toBe(409);
      expect(bulk.body.error.details[0].path).toBe('/tools');
      const { rows } = await t.db.sql.query(
        "SELECT count(*)::int AS n FROM tools WHERE project_id = $1 AND name IN ('one_too_many', 'also_too_many')",
        [t.projectId],
      );
      expect(rows[0].n).toBe(0);

      const update = await t.request('PUT', '/v1/tools/listed_1', {
        body: { description: 'Tool listed_1, updated', parameters: { type: 'object' } },
      });
      expect(update.status).toBe(200);
    });
  });
});
