import { randomUUID } from 'node:crypto';
import { POLICY_PATCH_SCHEMA } from '../../src/analytics/analytics.schemas';
import { ERROR_GROUP_PATCH_SCHEMA } from '../../src/dashboard/dashboard.schemas';
import { WARNING_BODY_SCHEMA } from '../../src/registry/registry.schemas';
import { anErrorEvent, anEvent } from '../factories/event.factory';
import { OpenApiContract, OpenApiDocument, registeredRoutes } from '../support/openapi-contract';
import { sendEvents } from '../support/send-events';
import { eventually, startTestApp, TestApp, TestResponse } from '../support/test-app';

// Served by the app but not part of the API: the document itself, its UI, the web dashboard's static files, the root's
// redirect to it, the favicon, and the MCP server (JSON-RPC on one URL, documented in docs/mcp-server.md).
const NOT_API = [/^\/docs(\/|$)/, /^\/openapi\.(json|yaml)$/, /^\/dashboard(\/|$)/, /^\/$/, /^\/favicon\.ico$/, /^\/mcp$/];

const TOOL = 'prime_factorization';
const PRIME_TOOL = {
  description: 'Perform prime factorization of a single integer.',
  parameters: {
    type: 'object',
    properties: { number: { type: 'integer', maximum: 1000000 } },
    required: ['number'],
    additionalProperties: false,
  },
};

describe('OpenAPI document', () => {
  let t: TestApp;
  let document: OpenApiDocument;
  let contract: OpenApiContract;
  let apiRoutes: string[];
  // every event is stamped a minute ago, so the nightly of that UTC day and the default stats range both hold them
  const occurredAt = new Date(Date.now() - 60_000);
  const day = occurredAt.toISOString().slice(0, 10);
  let stored = 0;

  beforeAll(async () => {
    t = await startTestApp();
    // this test database refuses events whose id starts with poison-, as a bad row would: they are dead-lettered
    await t.db.sql.query(`
      CREATE FUNCTION refuse_poison() RETURNS trigger AS $$
      BEGIN
        IF NEW.id LIKE 'poison-%' THEN RAISE EXCEPTION 'injected poison: %', NEW.id; END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql;
      CREATE TRIGGER refuse_poison BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse_poison();`);
    document = (await t.request('GET', '/openapi.json', { key: null })).body;
    contract = new OpenApiContract(document);
    apiRoutes = registeredRoutes(t.app).filter((route) => !NOT_API.some((pattern) => pattern.test(route.split(' ')[1])));
  });
  afterAll(() => t.close());

  /** Calls a route by its documented name ("PUT /v1/tools/{name}") and checks the answer against the document. */
  async function exercise(
    route: string,
    options: { params?: Record<string, string>; query?: string; body?: unknown } = {},
  ): Promise<TestResponse> {
    const [method, template] = route.split(' ');
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(options.params?.[name] ?? ''));
    const response = await t.request(method, options.query ? `${path}?${options.query}` : path, {
      body: options.body,
      key: isPublic(route) ? null : undefined,
    });
    contract.check(route, response);
    return response;
  }

  /** Documented without a security requirement; an undocumented route is called with the key, so it fails on its own. */
  const isPublic = (route: string) => {
    const operation = contract.operation(route);
    return operation !== undefined && operation.security === undefined;
  };

  async function waitUntilStored(count: number): Promise<void> {
    stored += count;
    await eventually(async () => {
      const { rows } = await t.db.sql.query('SELECT count(*)::int AS n FROM events');
      return rows[0].n === stored ? true : undefined;
    }, 20_000);
  }

  const at = (i: number) => new Date(occurredAt.getTime() + i).toISOString();
  // 30 correct calls and 10 with a wrong argument name: enough for the nightly to learn a warning
  const primeCalls = () =>
    Array.from({ length: 40 }, (_, i) =>
      i % 4 === 0
        ? anErrorEvent('Tool execution failed', { tool: TOOL, arguments: { numbers: [12, 15] }, occurredAt: at(i), descriptionVersion: 1 })
        : anEvent({ tool: TOOL, arguments: { number: 12 + i }, result: [2, 2, 3], occurredAt: at(i), descriptionVersion: 1 }),
    );

  it('is served at /openapi.json without a key and lists every route of the app with its response schema', async () => {
    expect(document.openapi).toMatch(/^3\./);
    expect(apiRoutes.length).toBeGreaterThan(30);
    const undocumented = apiRoutes.filter((route) => !contract.operation(route));
    const withoutSuccess = apiRoutes.filter((route) => {
      const success = Object.entries(contract.operation(route)?.responses ?? {}).filter(([code]) => code.startsWith('2'));
      const hasSchema = (r: (typeof success)[number][1]) =>
        r.content?.['application/json']?.schema ?? r.content?.['application/x-ndjson']?.schema;
      return success.length === 0 || success.some(([code, r]) => code !== '204' && !hasSchema(r));
    });
    expect(undocumented).toEqual([]);
    expect(withoutSuccess).toEqual([]);
  });

  it("documents each route's request with the very schema its feature validates with", () => {
    const bodyOf = (route: string) => contract.operation(route)?.requestBody?.content['application/json'].schema;
    expect(bodyOf('PUT /v1/policy')).toEqual(POLICY_PATCH_SCHEMA);
    expect(bodyOf('PATCH /v1/error-groups/{id}')).toEqual(ERROR_GROUP_PATCH_SCHEMA);
    expect(bodyOf('POST /v1/tools/{name}/warnings')).toEqual(WARNING_BODY_SCHEMA);
    const overview = contract.operation('GET /v1/stats/overview')!;
    expect(overview.parameters!.filter((p) => p.in === 'query').map((p) => p.name)).toEqual(['from', 'to', 'bucket', 'agent', 'model']);
    expect(contract.operation('GET /v1/tools/{name}/description')!.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'name', in: 'path', required: true })]),
    );
    expect(isPublic('GET /readyz')).toBe(true);
    expect(isPublic('GET /v1/events')).toBe(false);
  });

  it('refuses a drifted answer: the validate route documented as {valid, findings}, or a field no schema names', () => {
    const route = 'POST /v1/tools/{name}/validate';
    expect(contract.accepts(route, 200, { valid: true, errors: [], suggestion: null, checked: true, reason: null })).toBe(true);
    expect(contract.accepts(route, 200, { valid: false, findings: [] })).toBe(false);
    expect(contract.accepts(route, 200, { valid: true, errors: [], suggestion: null, checked: true, reason: null, undocumented: 1 })).toBe(
      false,
    );
    expect(contract.accepts('GET /v1/policy', 200, { autoApply: true, minOccurrences: 5, minShare: 0.05, autoApplyKinds: [] })).toBe(false);
    expect(() => contract.check('DELETE /v1/tools/{name}', { status: 200, headers: new Headers(), body: null })).toThrow(
      /answered 200, documented 204/,
    );
  });

  it('answers the registry routes as documented', async () => {
    expect((await exercise('PUT /v1/tools/{name}', { params: { name: TOOL }, body: PRIME_TOOL })).status).toBe(201);
    const changed = { ...PRIME_TOOL, description: `${PRIME_TOOL.description} Positive integers only.` };
    expect((await exercise('PUT /v1/tools/{name}', { params: { name: TOOL }, body: changed })).body.status).toBe('updated');
    await exercise('PUT /v1/tools/{name}', { params: { name: TOOL }, body: PRIME_TOOL });
    const bulk = await exercise('POST /v1/tools:bulk', {
      body: {
        tools: [
          {
            type: 'function',
            function: {
              name: 'get_weather',
              description: 'Weather of a city.',
              parameters: { type: 'object', properties: { city: { type: 'string' } } },
            },
          },
          { name: 'scratch', description: 'A tool this test archives.', input_schema: { type: 'object' } },
        ],
      },
    });
    expect(bulk.body.tools.map((r: { status: string }) => r.status)).toEqual(['created', 'created']);
    for (const format of ['raw', 'openai', 'anthropic', 'mcp', 'langchain']) {
      expect((await exercise('GET /v1/tools', { query: `format=${format}` })).body.tools).toHaveLength(3);
    }
    await exercise('GET /v1/tools/{name}/description', { params: { name: TOOL } });
    await exercise('GET /v1/tools/{name}/description', { params: { name: TOOL }, query: 'version=1' });
    const check = await exercise('POST /v1/tools/{name}/validate', { params: { name: TOOL }, body: { arguments: { numbr: 12 } } });
    expect(check.body).toMatchObject({ valid: false, suggestion: { number: 12 } });
    expect(check.body.errors.length).toBeGreaterThan(0);
    expect(
      (await exercise('POST /v1/tools/{name}/validate', { params: { name: TOOL }, body: { arguments: '{"number": 12}' } })).body.valid,
    ).toBe(true);

    const added = await exercise('POST /v1/tools/{name}/warnings', {
      params: { name: 'get_weather' },
      body: { text: 'Pass a city name, not coordinates.' },
    });
    const warning = { name: 'get_weather', id: added.body.warning.id };
    await exercise('GET /v1/tools/{name}/warnings', { params: { name: 'get_weather' } });
    await exercise('POST /v1/tools/{name}/warnings/{id}/dismiss', { params: warning, body: { reason: 'covered by the schema' } });
    expect((await exercise('POST /v1/tools/{name}/warnings/{id}/reinstate', { params: warning })).body.warning.status).toBe('active');
    await exercise('DELETE /v1/tools/{name}', { params: { name: 'scratch' } });
  });

  it('answers the ingest routes as documented, and the stored events as the dashboard reads them', async () => {
    const full = anErrorEvent('Tool execution failed', {
      tool: TOOL,
      arguments: { numbers: [1] },
      occurredAt: at(100),
      descriptionVersion: 1,
      agent: 'planner',
      model: 'gpt-x',
      framework: 'langchain',
      sessionId: 's1',
      traceId: 't1',
      runId: 'r1',
      toolCallId: 'c1',
      prompt: 'factor 12',
      metadata: { team: 'core' },
      durationMs: 3,
    });
    const provider = {
      openai: {
        toolCall: { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
        result: { tempC: 3 },
      },
    };
    const events = [...primeCalls(), full, provider, { tool: '', status: 'success' }];
    const accepted = await exercise('POST /v1/events', { body: { events, client: { sdk: 'toolcoach-ts', version: '0.1.0', dropped: 0 } } });
    expect(accepted.body).toMatchObject({ accepted: 42, rejected: [{ index: 42 }], client: { sdk: 'toolcoach-ts' } });
    await exercise('POST /v1/events', { body: anEvent({ tool: 'get_weather', occurredAt: at(200) }) });

    const exec = { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } };
    const span = (id: string, attributes: unknown[]) => ({
      traceId: 'a'.repeat(32),
      spanId: id.padEnd(16, '0'),
      name: id,
      attributes,
      startTimeUnixNano: `${occurredAt.getTime()}000000`,
      endTimeUnixNano: `${occurredAt.getTime() + 1}000000`,
    });
    const traces = {
      resourceSpans: [
        {
          scopeSpans: [
            { spans: [span('b1', [exec, { key: 'gen_ai.tool.name', value: { stringValue: 'get_weather' } }]), span('b2', [exec])] },
          ],
        },
      ],
    };
    expect((await exercise('POST /v1/traces', { body: traces })).body.partialSuccess.rejectedSpans).toBe(1);
    await waitUntilStored(44);

    const page = await exercise('GET /v1/events', { query: 'limit=50' });
    expect(page.body.items).toHaveLength(44);
    const diagnosed = await exercise('GET /v1/events/{id}', { params: { id: full.id as string } });
    const exported = await fetch(`${t.baseUrl}/v1/events/export?status=error&tool=${TOOL}`, {
      headers: { authorization: `Bearer ${t.apiKey}` },
    });
    const lines = await exported.text();
    expect(lines.split('\n').length).toBeGreaterThan(2);
    contract.checkLines('GET /v1/events/export', exported.status, lines);
    expect(diagnosed.body).toMatchObject({ category: 'argument_mismatch', metadata: { team: 'core' } });
  });

  it('answers the analytics routes as documented: a nightly run, its recommendation applied and dismissed by hand', async () => {
    const policy = {
      autoApply: false,
      minOccurrences: 5,
      minShare: 0.05,
      autoApplyKinds: ['wrong_argument_name'],
      autoRetire: true,
      warningTokenCap: 120,
      reviewMode: false,
    };
    expect((await exercise('PUT /v1/policy', { body: policy })).body).toEqual(policy);
    await exercise('GET /v1/policy');
    const queued = await exercise('POST /v1/jobs/nightly', { query: `date=${day}` });
    expect(queued.status).toBe(202);
    const run = await eventually(async () => {
      const response = await exercise('GET /v1/jobs/{id}', { params: { id: queued.body.id } });
      return ['queued', 'running'].includes(response.body.status) ? undefined : response;
    }, 20_000);
    expect(run.body).toMatchObject({ status: 'succeeded', date: day });
    await exercise('GET /v1/jobs');
    const proposed = await exercise('GET /v1/recommendations', { query: 'status=proposed' });
    // the learned one; the tools' own definitions also give schema_quality proposals (test/e2e/cold-start)
    const recommendation = proposed.body.items.find((r: { kind: string }) => r.kind === 'wrong_argument_name');
    expect(recommendation).toMatchObject({ tool: TOOL, kind: 'wrong_argument_name' });
    await exercise('GET /v1/recommendations/{id}/source-fix', { params: { id: recommendation.id }, query: 'format=anthropic' });
    await exercise('GET /v1/tools/{name}/source-fix', { params: { name: TOOL }, query: 'format=zod' });
    // review mode: the nightly would apply it now, so it waits for an approval, which applies it
    expect((await t.request('PUT', '/v1/policy', { body: { autoApply: true, reviewMode: true } })).status).toBe(200);
    expect((await exercise('POST /v1/recommendations/{id}/approve', { params: { id: recommendation.id } })).body.status).toBe('applied');
    expect((await exercise('POST /v1/recommendations/{id}/apply', { params: { id: recommendation.id } })).body.status).toBe('applied');
    expect((await exercise('POST /v1/recommendations/{id}/dismiss', { params: { id: recommendation.id } })).body.status).toBe('dismissed');
  });

  it('answers the dashboard routes as documented, and its one write, the triage of an error group', async () => {
    const range = `from=${day}`;
    expect((await exercise('GET /v1/stats/overview', { query: range })).body.totals.calls).toBeGreaterThan(0);
    await exercise('GET /v1/stats/overview', { query: `${range}&bucket=hour` });
    await exercise('GET /v1/stats/tools', { query: `${range}&limit=1` });
    await exercise('GET /v1/tools/{name}/stats', { params: { name: TOOL }, query: range });
    await exercise('GET /v1/stats/overview', { query: `${range}&agent=planner` });
    expect((await exercise('GET /v1/project')).body.id).toBe(t.projectId);
    const agents = await exercise('GET /v1/stats/agents', { query: range });
    expect(agents.body.items.map((row: { name: string | null }) => row.name)).toEqual([null, 'planner']);
    expect((await exercise('GET /v1/stats/models', { query: `${range}&tool=${TOOL}` })).body.items.length).toBeGreaterThan(0);
    const groups = await exercise('GET /v1/tools/{name}/error-groups', { params: { name: TOOL } });
    const [group] = groups.body.items;
    await exercise('GET /v1/error-groups/{id}', { params: { id: group.id } });
    expect((await exercise('PATCH /v1/error-groups/{id}', { params: { id: group.id }, body: { status: 'resolved' } })).body.status).toBe(
      'resolved',
    );
    const versions = await exercise('GET /v1/tools/{name}/version-history', { params: { name: TOOL } });
    expect(versions.body.items.length).toBeGreaterThan(1);
    // a day of confusion counts as the nightly writes them (test/e2e/tool-confusion.e2e-spec.ts makes real ones)
    await t.db.sql.query(
      `INSERT INTO daily_tool_confusions (project_id, tool, confused_with, day, description_version, confusions, confused_sessions, sessions, example_session_ids)
       VALUES ($1, $2, 'factorial', current_date, 1, 3, 2, 10, '{s1,s2}')`,
      [t.projectId, TOOL],
    );
    expect((await exercise('GET /v1/confusions')).body.items).toHaveLength(1);
    expect((await exercise('GET /v1/tools/{name}/confusions', { params: { name: TOOL } })).body.items[0].versions).toHaveLength(1);
    const cost = await exercise('GET /v1/description-cost');
    expect(cost.body.items.find((row: { tool: string }) => row.tool === TOOL)).toMatchObject({ version: versions.body.items[0].version });
  });

  it('answers the dead-letter routes as documented', async () => {
    await exercise('POST /v1/events', { body: anErrorEvent('boom', { id: `poison-${randomUUID()}`, tool: TOOL }) });
    const letters = await eventually(async () => {
      const response = await t.request('GET', '/v1/admin/dead-letters');
      return response.body.items?.length > 0 ? response : undefined;
    });
    contract.check('GET /v1/admin/dead-letters', letters);
    await t.db.sql.query('DROP TRIGGER refuse_poison ON events');
    await exercise('POST /v1/admin/dead-letters/{id}/replay', { params: { id: letters.body.items[0].id } });
    await waitUntilStored(1);
  });

  it('answers the health routes as documented', async () => {
    await exercise('GET /healthz');
    expect((await exercise('GET /readyz')).body.status).toBe('ready');
  });

  it('answers the alert routes as documented', async () => {
    // a public unicast address (example.com's), so this server (private destinations refused) accepts it; documentation
    // ranges such as TEST-NET-1 are special-purpose and refused
    const destination = await exercise('POST /v1/alerts/destinations', {
      body: { name: 'ops', kind: 'webhook', url: 'http://93.184.215.14/hook' },
    });
    const destinationId = { id: destination.body.id };
    await exercise('GET /v1/alerts/destinations');
    await exercise('GET /v1/alerts/destinations/{id}', { params: destinationId });
    await exercise('PATCH /v1/alerts/destinations/{id}', { params: destinationId, body: { name: 'ops-renamed' } });
    await exercise('POST /v1/alerts/destinations/{id}/test', { params: destinationId });
    const rule = await exercise('POST /v1/alerts/rules', { body: { name: 'failing', kind: 'success_rate_below', threshold: 90 } });
    const ruleId = { id: rule.body.id };
    await exercise('GET /v1/alerts/rules');
    await exercise('GET /v1/alerts/rules/{id}', { params: ruleId });
    await exercise('PATCH /v1/alerts/rules/{id}', { params: ruleId, body: { minCalls: 5 } });
    await exercise('GET /v1/alerts/incidents', { query: 'status=open' });
    expect((await exercise('GET /v1/alerts/deliveries')).body.items.length).toBeGreaterThan(0);
    await exercise('DELETE /v1/alerts/rules/{id}', { params: ruleId });
    await exercise('DELETE /v1/alerts/destinations/{id}', { params: destinationId });
  });

  it('answers the retention routes as documented', async () => {
    expect((await exercise('PUT /v1/retention', { body: { rawEventRetentionDays: 45 } })).body.rawEventRetentionDays).toBe(45);
    expect((await exercise('GET /v1/retention')).body).toEqual({ rawEventRetentionDays: 45, rollupRetentionDays: 400 });
  });

  it('answers the rollout routes as documented', async () => {
    const policy = { enabled: true, share: 0.5, minCalls: 30, design: 'split' };
    expect((await exercise('PUT /v1/rollout/policy', { body: policy })).body).toEqual({ ...policy, endedCanaries: [] });
    expect((await exercise('GET /v1/rollout/policy')).body).toEqual(policy);
    const canary = await t.request('POST', `/v1/tools/${TOOL}/warnings`, { body: { text: 'One integer per call.', canary: true } });
    expect(canary.status).toBe(201);
    const canaries = await exercise('GET /v1/rollout/canaries', { query: 'status=running' });
    expect(canaries.body.items).toEqual([expect.objectContaining({ tool: TOOL, status: 'running', decision: null })]);
    // the version history names the canary its version started as
    const versions = await exercise('GET /v1/tools/{name}/version-history', { params: { name: TOOL } });
    expect(versions.body.items[0].rollout).toMatchObject({ id: canaries.body.items[0].id, status: 'running' });
    const promoted = await exercise('POST /v1/rollout/canaries/{id}/promote', { params: { id: canaries.body.items[0].id } });
    expect(promoted.body).toMatchObject({ status: 'promoted', decision: { by: 'api' } });
    const next = await t.request('POST', `/v1/tools/${TOOL}/warnings`, { body: { text: 'Small integers only.', canary: true } });
    expect(next.status).toBe(201);
    const running = (await t.request('GET', '/v1/rollout/canaries?status=running')).body.items[0];
    expect((await exercise('POST /v1/rollout/canaries/{id}/stop', { params: { id: running.id } })).body.status).toBe('rolled_back');
    // the decisions taken by hand are on the version history too, in the shape it documents
    await exercise('GET /v1/tools/{name}/version-history', { params: { name: TOOL } });
  });

  it('answers the guard routes as documented', async () => {
    expect((await exercise('PUT /v1/guard/policy', { body: { mode: 'strict' } })).body).toEqual({ mode: 'strict' });
    expect((await exercise('GET /v1/guard/policy')).body).toEqual({ mode: 'strict' });
    const corrected = { original: { numbers: [12] }, corrected: { number: 12 }, kinds: ['rename', 'unwrap_array'] };
    await sendEvents(t, [
      { id: randomUUID(), tool: TOOL, status: 'success', arguments: { number: 12 }, correction: corrected },
      {
        id: randomUUID(),
        tool: TOOL,
        status: 'error',
        arguments: { numbers: [12, 18] },
        prevented: true,
        error: { type: 'GuardRefused', message: 'not run' },
      },
    ]);
    const stats = await eventually(async () => {
      const response = await exercise('GET /v1/tools/{name}/guard-stats', { params: { name: TOOL } });
      return response.body.totals.prevented === 1 ? response : undefined;
    });
    expect(stats.body.totals).toEqual({ corrected: 1, prevented: 1, byKind: { rename: 1, unwrap_array: 1 } });
  });

  it('answers the result-failure routes as documented, and a failure read from a result as the events route documents it', async () => {
    expect((await exercise('PUT /v1/result-failures/policy', { body: { disabledRules: ['error_string'] } })).body).toEqual({
      disabledRules: ['error_string'],
    });
    expect((await exercise('GET /v1/result-failures/policy')).body).toEqual({ disabledRules: ['error_string'] });
    const id = randomUUID();
    await sendEvents(t, [
      { id, tool: TOOL, status: 'success', arguments: { number: 12 }, result: { content: [{ type: 'text', text: 'no' }], isError: true } },
    ]);
    const event = await eventually(async () => {
      const response = await exercise('GET /v1/events/{id}', { params: { id } });
      return response.status === 200 ? response : undefined;
    });
    expect(event.body).toMatchObject({ status: 'error', evidence: 'result', resultRule: 'mcp_is_error' });
  });

  it('answers the unknown-lane routes as documented: a template listed, labelled, and exported as a fixture line', async () => {
    await sendEvents(t, [
      {
        id: randomUUID(),
        tool: TOOL,
        status: 'error',
        arguments: { number: 12 },
        error: { type: 'ToolError', message: 'Widget 42 wobbled' },
      },
    ]);
    const page = await exercise('GET /v1/unknown-templates', { query: 'limit=5' });
    const template = page.body.items.find((item: { template: string }) => item.template === 'Widget <num> wobbled');
    expect(template).toMatchObject({ count: 1, label: null });
    const labelled = await exercise('POST /v1/unknown-templates/{id}/label', {
      params: { id: template.id },
      body: { category: 'runtime_error' },
    });
    expect(labelled.body.label).toMatchObject({ category: 'runtime_error', subtype: null });
    const exported = await fetch(`${t.baseUrl}/v1/unknown-templates/fixtures`, { headers: { authorization: `Bearer ${t.apiKey}` } });
    const lines = await exported.text();
    expect(lines.trim().split('\n')).toHaveLength(1);
    contract.checkLines('GET /v1/unknown-templates/fixtures', exported.status, lines);
  });

  it('has checked a real answer of every route the app serves', () => {
    expect(apiRoutes.filter((route) => !contract.checkedRoutes.has(route))).toEqual([]);
  });

  it('serves a browsable UI at /docs and the dashboard page at /dashboard without a key', async () => {
    const docs = await fetch(`${t.baseUrl}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger-ui');
    const page = await fetch(`${t.baseUrl}/dashboard`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const chart = await fetch(`${t.baseUrl}/dashboard/assets/uPlot.iife.min.js`);
    expect(chart.status).toBe(200);
    expect((await fetch(`${t.baseUrl}/dashboard/assets/..%2Fpackage.json`)).status).toBe(404);
  });
});
