import { anErrorEvent } from '../factories/event.factory';
import { eventually, startTestApp, TestApp } from '../support/test-app';
import { RegistryService } from '../../src/registry/registry.service';
import { ToolRepository } from '../../src/registry/tools/tool.repository';

const primeFactorsSchema = {
  type: 'object',
  properties: { number: { type: 'integer', maximum: 1000000 } },
  required: ['number'],
  additionalProperties: false,
};
/** A registration's answer about the schema of a tool it creates. */
const NEW_SCHEMA = { kept: 'incoming', reason: 'new_tool', differences: [] };
const primeFactors = { description: 'Perform prime factorization of a single integer.', parameters: primeFactorsSchema };

describe('tool registry', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const put = (name: string, body: unknown, key?: string) => t.request('PUT', `/v1/tools/${name}`, { body, key });
  const describeTool = (name: string, query = '', headers: Record<string, string> = {}) =>
    t.request('GET', `/v1/tools/${name}/description${query}`, { headers });

  describe('PUT /v1/tools/:name', () => {
    it('creates version 1, then answers the same body with the same version and no new one', async () => {
      const created = await put('factorize_a', primeFactors);
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        name: 'factorize_a',
        version: 1,
        status: 'created',
        schema: NEW_SCHEMA,
        quality: { score: expect.any(Number), findings: expect.any(Array) },
      });
      const again = await put('factorize_a', primeFactors);
      expect(again.status).toBe(200);
      expect(again.body).toEqual({
        name: 'factorize_a',
        version: 1,
        status: 'unchanged',
        schema: { kept: 'current', reason: 'identical', differences: [] },
        quality: { score: expect.any(Number), findings: expect.any(Array) },
      });
      const { rows } = await t.db.sql.query(
        `SELECT count(*)::int AS n FROM tool_versions v JOIN tools t ON t.id = v.tool_id WHERE t.name = 'factorize_a'`,
      );
      expect(rows[0].n).toBe(1);
    });

    it('creates a new version when the description or the schema changes, but not for metadata', async () => {
      await put('factorize_b', primeFactors);
      expect((await put('factorize_b', { ...primeFactors, description: 'Factorize one integer.' })).body.version).toBe(2);
      const wider = { ...primeFactorsSchema, properties: { number: { type: 'integer', maximum: 10 ** 9 } } };
      expect((await put('factorize_b', { description: 'Factorize one integer.', parameters: wider })).body.version).toBe(3);
      const withMetadata = await put('factorize_b', {
        description: 'Factorize one integer.',
        parameters: wider,
        metadata: { team: 'math' },
      });
      expect(withMetadata.body).toEqual({
        name: 'factorize_b',
        version: 3,
        status: 'unchanged',
        schema: { kept: 'current', reason: 'identical', differences: [] },
        quality: { score: expect.any(Number), findings: expect.any(Array) },
      });
    });

    it('rejects a misspelled JSON Schema type with 400 invalid_schema naming /parameters/properties/n/type', async () => {
      const response = await put('bad_schema', { description: 'x', parameters: { type: 'object', properties: { n: { type: 'integr' } } } });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('invalid_schema');
      expect(response.body.error.details[0]).toEqual({
        path: '/parameters/properties/n/type',
        message: expect.stringContaining('must be one of'),
      });
    });

    it('rejects unknown keywords, remote $refs and non-object schemas, each at its path', async () => {
      const unknownKeyword = await put('bad_schema', {
        description: 'x',
        parameters: { type: 'object', properties: { n: { type: 'integer', example: 3 } } },
      });
      expect(unknownKeyword.body.error.details).toEqual([
        { path: '/parameters/properties/n/example', message: 'unknown keyword: "example"' },
      ]);
      const remote = await put('bad_schema', {
        description: 'x',
        parameters: { type: 'object', properties: { n: { $ref: 'https://evil.example/s.json' } } },
      });
      expect(remote.body.error.details[0].path).toBe('/parameters/properties/n/$ref');
      const notObject = await put('bad_schema', { description: 'x', parameters: { type: 'array' } });
      expect(notObject.body.error.details[0].path).toBe('/parameters/type');
      expect((await t.request('GET', '/v1/tools/bad_schema/description')).status).toBe(404);
    });

    it('runs a pattern that backtracks in JavaScript in linear time, and refuses one the linear engine cannot run, naming where it is', async () => {
      const email = (pattern: string) => ({
        description: 'x',
        parameters: { type: 'object', properties: { email: { type: 'string', pattern } } },
      });
      expect((await put('regex_tool', email('^([a-zA-Z0-9]+)*@example\\.com$'))).status).toBeLessThan(300);
      const startedAt = performance.now();
      const checked = await t.request('POST', '/v1/tools/regex_tool/validate', {
        body: { arguments: { email: `${'a'.repeat(50_000)}!` } },
      });
      expect(performance.now() - startedAt).toBeLessThan(1000);
      expect(checked.body).toMatchObject({ valid: false, checked: true, errors: [{ path: '/email', subtype: 'invalid_format' }] });
      const lookahead = await put('regex_tool', email('^(?=.*@)[a-z@.]+$'));
      expect(lookahead.status).toBe(400);
      expect(lookahead.body.error.details).toEqual([
        { path: '/parameters/properties/email/pattern', message: expect.stringContaining('lookahead or lookbehind') },
      ]);
    });

    it('rejects a body without description or with unknown fields with 400 invalid_body, and a bad name', async () => {
      const response = await put('no_description', { parameters: primeFactorsSchema, colour: 'red' });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('invalid_body');
      expect(response.body.error.details).toEqual([
        { path: '/description', message: 'is required and must be a string' },
        { path: '/colour', message: 'is not a known field' },
      ]);
      expect((await put('has%20space', primeFactors)).body.error.code).toBe('invalid_tool_name');
    });
  });

  describe('POST /v1/tools:bulk', () => {
    const parameters = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
    it('registers tools in our own, OpenAI, Anthropic and MCP shapes at once, idempotently', async () => {
      const body = {
        tools: [
          { name: 'bulk_own', description: 'Own.', parameters, metadata: { owner: 'x' } },
          { type: 'function', function: { name: 'bulk_openai', description: 'OpenAI.', parameters } },
          { name: 'bulk_anthropic', description: 'Anthropic.', input_schema: parameters },
          { name: 'bulk_mcp', description: 'MCP.', inputSchema: parameters, annotations: { readOnlyHint: true } },
        ],
      };
      const response = await t.request('POST', '/v1/tools:bulk', { body });
      expect(response.status).toBe(200);
      expect(response.body.tools).toEqual([
        {
          name: 'bulk_own',
          version: 1,
          status: 'created',
          schema: NEW_SCHEMA,
          quality: { score: expect.any(Number), findings: expect.any(Array) },
        },
        {
          name: 'bulk_openai',
          version: 1,
          status: 'created',
          schema: NEW_SCHEMA,
          quality: { score: expect.any(Number), findings: expect.any(Array) },
        },
        {
          name: 'bulk_anthropic',
          version: 1,
          status: 'created',
          schema: NEW_SCHEMA,
          quality: { score: expect.any(Number), findings: expect.any(Array) },
        },
        {
          name: 'bulk_mcp',
          version: 1,
          status: 'created',
          schema: NEW_SCHEMA,
          quality: { score: expect.any(Number), findings: expect.any(Array) },
        },
      ]);
      const again = await t.request('POST', '/v1/tools:bulk', { body: body.tools });
      expect(again.body.tools.map((tool: { status: string }) => tool.status)).toEqual(['unchanged', 'unchanged', 'unchanged', 'unchanged']);
      const served = await describeTool('bulk_anthropic');
      expect(served.body).toMatchObject({ name: 'bulk_anthropic', description: 'Anthropic.', parameters });
    });

    it('registers nothing when one tool has a bad schema, naming it under its own shape', async () => {
      const response = await t.request('POST', '/v1/tools:bulk', {
        body: {
          tools: [
            { name: 'bulk_fine', description: 'Fine.', parameters },
            { name: 'bulk_broken', description: 'Broken.', input_schema: { type: 'object', properties: { q: { type: 'str' } } } },
          ],
        },
      });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('invalid_schema');
      expect(response.body.error.details[0].path).toBe('/tools/1/input_schema/properties/q/type');
      expect((await describeTool('bulk_fine')).status).toBe(404);
    });

    it('rejects a tool registered twice in one request and a body that is not a list', async () => {
      const twice = await t.request('POST', '/v1/tools:bulk', {
        body: [
          { name: 'dup', parameters },
          { name: 'dup', parameters },
        ],
      });
      expect(twice.body.error.details).toEqual([{ path: '/1', message: 'registers "dup" again (first at index 0)' }]);
      expect((await t.request('POST', '/v1/tools:bulk', { body: { name: 'x' } })).status).toBe(400);
    });
  });

  describe('GET /v1/tools', () => {
    let other: { apiKey: string };
    const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    beforeAll(async () => {
      other = await t.createProject('registry-list-other');
      await t.request('POST', '/v1/tools:bulk', { body: [{ name: 'weather', description: 'Weather.', parameters }], key: other.apiKey });
    });

    it.each([
      ['openai', (d: string) => ({ type: 'function', function: { name: 'weather', description: d, parameters } })],
      ['anthropic', (d: string) => ({ name: 'weather', description: d, input_schema: parameters })],
      ['mcp', (d: string) => ({ name: 'weather', description: d, inputSchema: parameters })],
      ['langchain', (d: string) => ({ name: 'weather', description: d, schema: parameters })],
    ])('lists every active tool of the project in %s shape', async (format, expected) => {
      const response = await t.request('GET', `/v1/tools?format=${format}`, { key: other.apiKey });
      expect(response.status).toBe(200);
      // notes and each tool's quality report (for people) are listed beside the tools; a project without notes has none
      expect(response.body).toEqual({
        format,
        tools: [expected('Weather.')],
        notes: [],
        quality: [expect.objectContaining({ tool: 'weather' })],
        nextCursor: null,
      });
    });

    it('lists our raw shape with version, warnings and metadata by default', async () => {
      const response = await t.request('GET', '/v1/tools', { key: other.apiKey });
      expect(response.body.tools).toEqual([
        {
          name: 'weather',
          version: 1,
          description: 'Weather.',
          baseDescription: 'Weather.',
          warnings: [],
          parameters,
          metadata: null,
          // what the SDK guard checks locally (issue 22): the schema is the item's own parameters
          guard: { version: 1, policy: 'correct', schema: 'parameters', renames: [], limits: [] },
        },
      ]);
    });

    it('rejects an unknown format with 400 naming /query/format', async () => {
      const response = await t.request('GET', '/v1/tools?format=gemini');
      expect(response.status).toBe(400);
      expect(response.body.error.details[0].path).toBe('/query/format');
    });
  });

  describe('GET /v1/tools/:name/description, versions and warnings', () => {
    beforeAll(async () => {
      await put('prime_factors_w', primeFactors);
    });

    it('answers the description view with a strong ETag and cache headers, then 304 for If-None-Match', async () => {
      const response = await describeTool('prime_factors_w');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        name: 'prime_factors_w',
        version: 1,
        description: primeFactors.description,
        baseDescription: primeFactors.description,
        warnings: [],
        parameters: primeFactorsSchema,
        guard: { version: 1, policy: 'correct', schema: 'parameters', renames: [], limits: [] },
      });
      const etag = response.headers.get('etag')!;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      expect(response.headers.get('cache-control')).toBe('private, max-age=60, stale-while-revalidate=300');
      const notModified = await describeTool('prime_factors_w', '', { 'if-none-match': etag });
      expect(notModified.status).toBe(304);
      expect(notModified.headers.get('etag')).toBe(etag);
      expect((await describeTool('prime_factors_w', '', { 'if-none-match': `"other", W/${etag}` })).status).toBe(304);
      expect((await describeTool('prime_factors_w', '', { 'if-none-match': '"other"' })).status).toBe(200);
    });

    it('adds a warning by hand as a new version, dismisses and reinstates it, and pins old versions exactly', async () => {
      const before = await describeTool('prime_factors_w');
      const added = await t.request('POST', '/v1/tools/prime_factors_w/warnings', {
        body: {
          text: "Do not pass 'numbers'. The parameter is 'number' (one integer); call this tool once per number.",
          kind: 'unknown_argument',
          evidenceKey: 'unknown_argument:/numbers',
          evidence: { count: 1240, firstSeen: '2026-03-01T00:00:00.000Z', lastSeen: '2026-03-02T00:00:00.000Z', exampleEventIds: ['e1'] },
        },
      });
      expect(added.status).toBe(201);
      expect(added.body.version).toBe(2);
      const warningId = added.body.warning.id;

      const v2 = await describeTool('prime_factors_w');
      expect(v2.headers.get('etag')).not.toBe(before.headers.get('etag'));
      expect(v2.body.version).toBe(2);
      expect(v2.body.description).toBe(
        `${primeFactors.description}\n\nCommon mistakes:\n` +
          "- Do not pass 'numbers'. The parameter is 'number' (one integer); call this tool once per number. 1,240 recent calls failed this way.",
      );
      expect(v2.body.warnings).toEqual([
        {
          id: warningId,
          kind: 'unknown_argument',
          text: expect.any(String),
          evidence: { count: 1240, firstSeen: '2026-03-01T00:00:00.000Z', lastSeen: '2026-03-02T00:00:00.000Z', exampleEventIds: ['e1'] },
          status: 'active',
        },
      ]);

      const dismissed = await t.request('POST', `/v1/tools/prime_factors_w/warnings/${warningId}/dismiss`, {
        body: { reason: 'fixed in code' },
      });
      expect(dismissed.body).toMatchObject({ version: 3, warning: { status: 'dismissed', dismissedReason: 'fixed in code' } });
      expect((await describeTool('prime_factors_w')).body.description).toBe(primeFactors.description);

      const reinstated = await t.request('POST', `/v1/tools/prime_factors_w/warnings/${warningId}/reinstate`);
      expect(reinstated.body).toMatchObject({ version: 4, warning: { status: 'active' } });

      const pinned = await t.request('GET', '/v1/tools/prime_factors_w/description?version=2');
      // a pinned version is served exactly as stored: the live answer without the guard section (it is not versioned)
      const stored = (live: { body: Record<string, unknown> }) =>
        Object.fromEntries(Object.entries(live.body).filter(([key]) => key !== 'guard'));
      expect(pinned.body).toEqual(stored(v2));
      expect((await t.request('GET', '/v1/tools/prime_factors_w/description?version=2')).headers.get('etag')).toBe(
        pinned.headers.get('etag'),
      );
      expect((await describeTool('prime_factors_w', '?version=1')).body).toEqual(stored(before));

      const warnings = await t.request('GET', '/v1/tools/prime_factors_w/warnings');
      expect(warnings.body.warnings).toEqual([expect.objectContaining({ id: warningId, status: 'active', source: 'manual' })]);
    });

    it('answers 404 for a version that does not exist and 400 for one that is not a number', async () => {
      const missing = await describeTool('prime_factors_w', '?version=99');
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('version_not_found');
      expect((await describeTool('prime_factors_w', '?version=latest')).body.error.details[0].path).toBe('/query/version');
    });

    it('refuses a second warning for the same evidence key with 409', async () => {
      const response = await t.request('POST', '/v1/tools/prime_factors_w/warnings', {
        body: { text: 'Again.', evidenceKey: 'unknown_argument:/numbers' },
      });
      expect(response.status).toBe(409);
    });
  });

  describe('automatic warnings from analytics (RegistryService)', () => {
    const evidence = (count: number) => ({
      count,
      firstSeen: '2026-03-01T00:00:00.000Z',
      lastSeen: '2026-03-05T00:00:00.000Z',
      exampleEventIds: ['evt-1', 'evt-2'],
    });
    const auto = (count: number, text = "'number' above 1,000,000 fails (out of range).") => ({
      kind: 'above_maximum',
      text,
      evidence: evidence(count),
      evidenceKey: 'above_maximum:/number',
    });

    it('adds a new version for a new warning, keeps it for new counts, refuses a dismissed one', async () => {
      const registry = t.app.get(RegistryService);
      await put('prime_factors_auto', primeFactors);
      const added = await registry.applyAutoWarning(t.projectId, 'prime_factors_auto', auto(12));
      expect(added).toEqual({ applied: true, warningId: expect.any(String), version: 2 });
      expect(await registry.applyAutoWarning(t.projectId, 'prime_factors_auto', auto(12))).toEqual({
        applied: false,
        warningId: added.warningId,
        version: 2,
        reason: 'unchanged',
      });
      expect(await registry.applyAutoWarning(t.projectId, 'prime_factors_auto', auto(40))).toEqual({
        applied: true,
        warningId: added.warningId,
        version: 2,
      });
      expect((await registry.listActiveWarnings(t.projectId, 'prime_factors_auto'))[0].evidence.count).toBe(40);
      expect((await registry.applyAutoWarning(t.projectId, 'prime_factors_auto', auto(40, 'Keep number <= 1,000,000.'))).version).toBe(3);

      await registry.retireWarning(t.projectId, added.warningId!, 'no longer seen');
      expect((await describeTool('prime_factors_auto')).body).toMatchObject({ version: 4, warnings: [] });
      expect(await registry.applyAutoWarning(t.projectId, 'prime_factors_auto', auto(50))).toEqual({
        applied: false,
        warningId: added.warningId,
        version: 4,
        reason: 'dismissed',
      });
      expect(await registry.applyAutoWarning(t.projectId, 'not_registered', auto(1))).toMatchObject({
        applied: false,
        reason: 'unknown_tool',
      });
      expect(await registry.findToolSchemas(t.projectId, ['prime_factors_auto', 'not_registered'])).toEqual(
        new Map([['prime_factors_auto', primeFactorsSchema]]),
      );
    });
  });

  describe('POST /v1/tools/:name/validate', () => {
    beforeAll(async () => {
      await put('prime_factors_v', primeFactors);
    });
    const validate = (args: unknown, name = 'prime_factors_v', key?: string) =>
      t.request('POST', `/v1/tools/${name}/validate`, { body: { arguments: args }, key });

    it('answers valid for correct arguments', async () => {
      expect((await validate({ number: 12 })).body).toEqual({ valid: true, errors: [], suggestion: null, checked: true, reason: null });
    });

    it('maps a wrong name and a one-element array to a corrected suggestion', async () => {
      const response = await validate({ numbers: [12] });
      expect(response.status).toBe(200);
      expect(response.body.valid).toBe(false);
      expect(response.body.errors).toContainEqual({
        kind: 'schema',
        category: 'argument_mismatch',
        subtype: 'unknown_argument',
        path: '/numbers',
        message: expect.stringContaining("the parameter is 'number'"),
      });
      expect(response.body.suggestion).toEqual({ number: 12 });
    });

    it('says to call once per item and suggests nothing for several items where a scalar belongs', async () => {
      const response = await validate({ numbers: [12, 15] });
      expect(response.body.suggestion).toBeNull();
      expect(response.body.errors.find((error: { subtype: string }) => error.subtype === 'unknown_argument').message).toContain(
        'call this tool once per item',
      );
    });

    it('returns every error with its category', async () => {
      const response = await validate({ number: 2000000, extra: true });
      expect(
        response.body.errors.map((error: { category: string; subtype: string; path: string }) => [
          error.category,
          error.subtype,
          error.path,
        ]),
      ).toEqual([
        ['argument_mismatch', 'unknown_argument', '/extra'],
        ['out_of_range', 'above_maximum', '/number'],
      ]);
    });

    it("uses renames learned from this project's events", async () => {
      // A tool of its own: learned renames are cached per tool for a few minutes.
      await put('prime_factors_learned', primeFactors);
      // what the worker keeps when a message said the intended name ("did you mean 'number'?") three times
      await t.db.sql.query(
        `INSERT INTO error_groups (id, project_id, fingerprint, tool, category, subtype, argument_path, message_template,
           count, first_seen, last_seen, sample_event_ids, intended_argument)
         VALUES (gen_random_uuid(), $1, repeat('a', 40), 'prime_factors_learned', 'argument_mismatch', 'unknown_argument',
           '/payload', 'unexpected argument <str>', 3, now(), now(), '{}', 'number')`,
        [t.projectId],
      );
      const response = await validate({ payload: 8, verbose: true }, 'prime_factors_learned');
      expect(response.body.errors).toContainEqual({
        kind: 'schema',
        category: 'argument_mismatch',
        subtype: 'unknown_argument',
        path: '/payload',
        message: "'payload' is not a parameter of this tool; the parameter is 'number'",
      });
      expect(response.body.suggestion).toBeNull();
      expect((await validate({ payload: 8 }, 'prime_factors_learned')).body.suggestion).toEqual({ number: 8 });
    });

    it('answers 404 for a tool that is not registered and 400 without arguments', async () => {
      expect((await validate({ number: 1 }, 'nope')).status).toBe(404);
      expect((await t.request('POST', '/v1/tools/prime_factors_v/validate', { body: { args: {} } })).status).toBe(400);
    });
  });

  describe('DELETE /v1/tools/:name', () => {
    it('archives a tool: no longer served, listed or validated; its events stay; registering again restores it', async () => {
      await put('to_archive', primeFactors);
      const event = anErrorEvent('boom', { tool: 'to_archive', arguments: { number: 3 } });
      await t.request('POST', '/v1/events', { body: event });
      await eventually(async () => ((await t.request('GET', `/v1/events/${event.id}`)).status === 200 ? true : undefined));

      expect((await t.request('DELETE', '/v1/tools/to_archive')).status).toBe(204);
      expect((await describeTool('to_archive')).status).toBe(404);
      expect((await t.request('POST', '/v1/tools/to_archive/validate', { body: { arguments: {} } })).status).toBe(404);
      const listed = await t.request('GET', '/v1/tools');
      expect(listed.body.tools.map((tool: { name: string }) => tool.name)).not.toContain('to_archive');
      expect((await t.request('GET', `/v1/events/${event.id}`)).status).toBe(200);
      expect((await t.request('DELETE', '/v1/tools/never_registered')).status).toBe(404);

      const restored = await put('to_archive', primeFactors);
      expect(restored.status).toBe(200);
      expect(restored.body).toEqual({
        name: 'to_archive',
        version: 1,
        status: 'restored',
        schema: { kept: 'current', reason: 'identical', differences: [] },
        quality: { score: expect.any(Number), findings: expect.any(Array) },
      });
    });
  });

  describe('cross-project isolation', () => {
    it("answers 404 for another project's tool on every route", async () => {
      await put('private_tool', primeFactors);
      const stranger = await t.createProject('registry-stranger');
      const key = stranger.apiKey;
      expect((await t.request('GET', '/v1/tools/private_tool/description', { key })).status).toBe(404);
      expect((await t.request('POST', '/v1/tools/private_tool/validate', { body: { arguments: { number: 1 } }, key })).status).toBe(404);
      expect((await t.request('GET', '/v1/tools/private_tool/warnings', { key })).status).toBe(404);
      expect((await t.request('POST', '/v1/tools/private_tool/warnings', { body: { text: 'x' }, key })).status).toBe(404);
      expect((await t.request('DELETE', '/v1/tools/private_tool', { key })).status).toBe(404);
      expect((await t.request('GET', '/v1/tools', { key })).body.tools).toEqual([]);
      expect((await t.request('GET', '/v1/tools/private_tool/description')).status).toBe(200);
    });

    it('answers 401 without a key', async () => {
      expect((await t.request('GET', '/v1/tools', { key: null })).status).toBe(401);
      expect((await t.request('PUT', '/v1/tools/x', { body: primeFactors, key: null })).status).toBe(401);
    });
  });

  describe('caching across instances', () => {
    let second: TestApp;
    beforeAll(async () => {
      second = await startTestApp({ ROLES: 'api' }, { sharing: t });
    });
    afterAll(() => second.close());

    it('serves repeated GETs from memory and drops them on every instance when a version changes', async () => {
      await put('shared_tool', primeFactors);
      const repository = second.app.get(ToolRepository);
      const reads = jest.spyOn(repository, 'findServedTool');
      const first = await second.request('GET', '/v1/tools/shared_tool/description');
      expect(first.body.version).toBe(1);
      for (let i = 0; i < 5; i++) expect((await second.request('GET', '/v1/tools/shared_tool/description')).body.version).toBe(1);
      expect(reads).toHaveBeenCalledTimes(1);

      await put('shared_tool', { ...primeFactors, description: 'Factorize one integer.' });
      const refreshed = await eventually(async () => {
        const response = await second.request('GET', '/v1/tools/shared_tool/description', {
          headers: { 'if-none-match': first.headers.get('etag')! },
        });
        return response.status === 200 ? response : undefined;
      }, 5000);
      expect(refreshed.body).toMatchObject({ version: 2, description: 'Factorize one integer.' });
      reads.mockRestore();
    });

    it('drops the cached tool list and compiled schema on the other instance too', async () => {
      await put('shared_list', primeFactors);
      expect(
        (await second.request('GET', '/v1/tools?format=openai')).body.tools.map(
          (tool: { function: { name: string } }) => tool.function.name,
        ),
      ).toContain('shared_list');
      expect((await second.request('POST', '/v1/tools/shared_list/validate', { body: { arguments: { number: 5 } } })).body.valid).toBe(
        true,
      );
      await t.request('DELETE', '/v1/tools/shared_list');
      await eventually(async () => {
        const response = await second.request('GET', '/v1/tools?format=openai');
        return response.body.tools.some((tool: { function: { name: string } }) => tool.function.name === 'shared_list') ? undefined : true;
      }, 5000);
      expect((await second.request('POST', '/v1/tools/shared_list/validate', { body: { arguments: { number: 5 } } })).status).toBe(404);
    });
  });

  describe('the worker uses registered schemas', () => {
    it('stores {"numbers": [12, 15]} as unknown_argument at /numbers meaning number, array for scalar, even for "Tool execution failed"', async () => {
      await put('prime_factors', primeFactors);
      const event = anErrorEvent('Tool execution failed', { tool: 'prime_factors', arguments: { numbers: [12, 15] } });
      expect((await t.request('POST', '/v1/events', { body: event })).status).toBe(202);
      const stored = await t.storedEvent(event.id as string);
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
  });
});
