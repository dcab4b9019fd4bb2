import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runNightly } from '../support/job-runs';
import { sendEvents } from '../support/send-events';
import { startTestApp, TestApp } from '../support/test-app';

// A day of calls to the tool of this project's origin story: agents batch the numbers (`numbers: [...]`) in a share
// of calls; the nightly of that day turns the mistake into a recommendation.
const DAY = '2026-06-02';
const TOOL = 'prime_factorization';
const ORIGIN_TOOL = {
  description: 'Perform prime factorization of a number',
  parameters: { type: 'object', properties: { number: { type: 'integer' } }, required: ['number'] },
};
const BUDGET_BYTES = 16 * 1024;
// the coding-agent configuration docs/mcp-server.md shows: every client here connects with its url and headers
const AGENT_CONFIG = JSON.parse(readFileSync(join(__dirname, '..', '..', 'examples', 'mcp-server', 'mcp.json'), 'utf8')).mcpServers
  .toolcoach as { type: string; url: string; headers: Record<string, string> };

/** The seeded day: a third of the calls batch the numbers (`numbers: [...]`) and fail, the rest succeed. */
function seededDay(): Record<string, unknown>[] {
  const at = (second: number) => new Date(Date.parse(`${DAY}T09:00:00Z`) + second * 1000).toISOString();
  return Array.from({ length: 60 }, (_, i) =>
    i % 3 === 0
      ? {
          id: randomUUID(),
          tool: TOOL,
          status: 'error',
          sessionId: i < 30 ? 'session-a' : 'session-b',
          arguments: { numbers: [12, 15, 18 + i] },
          occurredAt: at(i),
          descriptionVersion: 1,
          error: {
            type: 'ValidationError',
            message: `1 validation error for ${TOOL}\nnumber\n  Field required [type=missing, input_value={'numbers': [12, 15, ${18 + i}]}, input_type=dict]`,
          },
        }
      : {
          id: randomUUID(),
          tool: TOOL,
          status: 'success',
          sessionId: i < 30 ? 'session-a' : 'session-b',
          arguments: { number: 12 + i },
          result: [2, 2, 3],
          occurredAt: at(i),
          descriptionVersion: 1,
        },
  );
}

type Answer = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- tool answers are asserted with expect

/**
 * The MCP server at /mcp (docs/mcp-server.md), with the official MCP SDK client over Streamable HTTP against the
 * booted app in its default configuration: the tools and their answers after a seeded day and its nightly, a read key
 * refused a write, a write key applying a recommendation, and another project's key seeing none of it.
 */
describe('MCP server at /mcp', () => {
  let t: TestApp;
  let readKey: string;
  let otherKey: string;
  const clients: Client[] = [];

  async function connect(key: string): Promise<Client> {
    const client = new Client({ name: 'mcp-server-e2e', version: '1.0.0' });
    const url = new URL(AGENT_CONFIG.url.replace('http://localhost:3000', t.baseUrl));
    const headers = Object.fromEntries(
      Object.entries(AGENT_CONFIG.headers).map(([name, value]) => [name, value.replace('${TOOLCOACH_API_KEY}', key)]),
    );
    const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
    await client.connect(transport);
    clients.push(client);
    // the SDK's client checks each answer's structuredContent against the tool's output schema once it has listed them
    await client.listTools();
    return client;
  }

  async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    if (!result.isError) expect(Buffer.byteLength(JSON.stringify(result.structuredContent))).toBeLessThanOrEqual(BUDGET_BYTES);
    return result;
  }

  const answerOf = (result: CallToolResult): Answer => {
    if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content)}`);
    return result.structuredContent as Answer;
  };
  const errorText = (result: CallToolResult): string => {
    expect(result.isError).toBe(true);
    return (result.content[0] as { text: string }).text;
  };

  beforeAll(async () => {
    t = await startTestApp();
    expect((await t.request('PUT', `/v1/tools/${TOOL}`, { body: ORIGIN_TOOL })).status).toBe(201);
    // nothing applies by itself: the recommendation waits for the agent's apply
    expect((await t.request('PUT', '/v1/policy', { body: { autoApply: false } })).status).toBe(200);
    await sendEvents(t, seededDay());
    expect((await runNightly(t, DAY)).body).toMatchObject({ status: 'succeeded', date: DAY });

    const { rows } = await t.db.sql.query('SELECT name FROM projects WHERE id = $1', [t.projectId]);
    // the read key as docs/mcp-server.md makes it: `npm run cli -- key:create PROJECT NAME --read`
    const cliEnv = {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: t.db.url,
      REDIS_URL: t.config.redisUrl,
      QUEUE_PREFIX: t.config.queuePrefix,
    };
    const cliJs = join(__dirname, '..', '..', 'dist', 'src', 'cli.js');
    const created = await promisify(execFile)(process.execPath, [cliJs, 'key:create', rows[0].name, 'coding-agent', '--read'], {
      env: cliEnv,
    });
    readKey = created.stdout.trim();
    const scopes = await t.db.sql.query("SELECT scope FROM api_keys WHERE project_id = $1 AND name = 'coding-agent'", [t.projectId]);
    expect(scopes.rows).toEqual([{ scope: 'read' }]);
    otherKey = (await t.createProject(`mcp-other-${randomUUID().slice(0, 8)}`)).apiKey;
  }, 120_000);

  afterAll(async () => {
    for (const client of clients) await client.close();
    await t.close();
  });

  it('lists every tool with a description, an input and an output schema, and the docs pages as resources', async () => {
    expect(AGENT_CONFIG).toMatchObject({ type: 'http', url: 'http://localhost:3000/mcp' });
    const client = await connect(readKey);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'apply_recommendation',
      'approve_recommendation',
      'dismiss_recommendation',
      'failing_tools',
      'promote_canary',
      'recommendations',
      'session_events',
      'stop_canary',
      'tool_details',
    ]);
    for (const tool of tools) {
      expect({ name: tool.name, described: (tool.description ?? '').length > 80 }).toEqual({ name: tool.name, described: true });
      expect(tool.outputSchema).toMatchObject({ type: 'object' });
      expect(tool.annotations?.readOnlyHint).toBe(!/^(apply|approve|dismiss|promote|stop)_/.test(tool.name));
    }
    const { resources } = await client.listResources();
    const taxonomy = resources.find((resource) => resource.uri === 'toolcoach://docs/categorization.md')!;
    expect(taxonomy.description).toMatch(/taxonomy/);
    const read = await client.readResource({ uri: taxonomy.uri });
    expect(read.contents[0]).toMatchObject({ mimeType: 'text/markdown', text: expect.stringContaining('argument_mismatch') });
  });

  it("answers the failing tools of the seeded day with their error groups and sample events, and a session's events", async () => {
    const client = await connect(readKey);
    const failing = answerOf(await call(client, 'failing_tools', { from: DAY, to: '2026-06-03' }));
    expect(failing).toMatchObject({ truncated: false, nextCursor: null });
    expect(failing.tools).toHaveLength(1);
    const [tool] = failing.tools;
    expect(tool).toMatchObject({ tool: TOOL, calls: 60, errors: 20, errorsByCategory: { argument_mismatch: 20 } });
    expect(tool.errorGroups[0]).toMatchObject({ category: 'argument_mismatch', count: 20 });
    expect(tool.errorGroups[0].samples[0].arguments).toEqual({ numbers: [12, 15, expect.any(Number)] });

    const session = answerOf(await call(client, 'session_events', { session: 'session-a', limit: 7 }));
    expect(session.events).toHaveLength(7);
    expect(session.events.every((event: Answer) => event.tool === TOOL)).toBe(true);
    const rest = answerOf(await call(client, 'session_events', { session: 'session-a', limit: 50, cursor: session.nextCursor }));
    expect(rest).toMatchObject({ nextCursor: null, truncated: false });
    expect(rest.events).toHaveLength(23);
  });

  it('names the bad argument in a tool error, for a schema violation, an unknown argument and a forged cursor', async () => {
    const client = await connect(readKey);
    expect(errorText(await call(client, 'failing_tools', { limit: 500 }))).toBe('Invalid arguments: limit must be <= 20');
    expect(errorText(await call(client, 'session_events', { sesion: 'x' }))).toMatch(/session is required.*sesion is not an argument/);
    expect(errorText(await call(client, 'session_events', { session: 'a', cursor: 'forged' }))).toMatch(/^Invalid arguments: cursor /);
    expect(errorText(await call(client, 'tool_details', { tool: 'no_such_tool' }))).toBe(
      'No tool "no_such_tool" in this project (not_found)',
    );
  });

  it('reads a recommendation, refuses to apply it with a read key, applies it with a write key, and serves the new version', async () => {
    const reader = await connect(readKey);
    const listed = answerOf(await call(reader, 'recommendations', { tool: TOOL, status: 'proposed', limit: 20 }));
    // the mistake of the seeded day, learned by the nightly (schema changes are proposals only, never applied)
    const applicable = listed.recommendations.filter((item: Answer) => !item.evidence.proposalOnly);
    const recommendation = applicable.find((item: Answer) => item.kind !== 'schema_quality') ?? applicable[0];
    expect(recommendation).toMatchObject({ tool: TOOL, status: 'proposed', appliedVersion: null });
    expect(recommendation.evidence).toBeTruthy();

    expect(errorText(await call(reader, 'apply_recommendation', { id: recommendation.id }))).toMatch(/read-only \(scope read\)/);
    const rest = await t.request('POST', `/v1/recommendations/${recommendation.id}/apply`, { key: readKey });
    expect({ status: rest.status, code: rest.body.error?.code }).toEqual({ status: 403, code: 'read_only_key' });
    expect(answerOf(await call(reader, 'tool_details', { tool: TOOL })).live.version).toBe(1);

    const writer = await connect(t.apiKey);
    const applied = answerOf(await call(writer, 'apply_recommendation', { id: recommendation.id }));
    expect(applied.recommendation).toMatchObject({ id: recommendation.id, status: 'applied', appliedVersion: 2 });

    const details = answerOf(await call(reader, 'tool_details', { tool: TOOL }));
    expect(details.live.version).toBe(2);
    expect(details.live.description).toContain(recommendation.text);
    expect(details.versions.map((v: Answer) => v.version)).toEqual([2, 1]);
    expect(details.versions[1]).toMatchObject({ calls: 60, errors: 20 });
    expect(details.warnings[0]).toMatchObject({ status: 'active', text: recommendation.text });
  });

  it('approves with a write key only what waits for review, and the approved one goes the way the nightly takes', async () => {
    const writer = await connect(t.apiKey);
    const waiting = async () =>
      (await t.request('GET', `/v1/recommendations?tool=${TOOL}&status=proposed&limit=200`)).body.items as Answer[];
    const [notWaiting] = (await waiting()).filter((item) => !item.evidence.proposalOnly);
    expect(notWaiting).toBeDefined();
    expect(errorText(await call(writer, 'approve_recommendation', { id: notWaiting.id }))).toMatch(/not_awaiting_approval/);

    // auto-apply in review mode, with thresholds every learned warning of the seeded day passes: what the nightly would
    // apply waits
    expect(
      (await t.request('PUT', '/v1/policy', { body: { autoApply: true, reviewMode: true, minOccurrences: 1, minShare: 0 } })).status,
    ).toBe(200);
    const proposed = await waiting();
    const held = proposed.find((item) => item.waitingFor?.reason === 'awaiting_approval');
    expect({ held: held !== undefined, waitingFor: proposed.map((item) => item.waitingFor?.reason) }).toMatchObject({ held: true });
    const reader = await connect(readKey);
    expect(errorText(await call(reader, 'approve_recommendation', { id: held!.id }))).toMatch(/read-only \(scope read\)/);
    const approved = answerOf(await call(writer, 'approve_recommendation', { id: held!.id }));
    // approved: it goes the way the nightly would take it (applied, a canary, or after the warning it restates)
    expect(approved.recommendation.id).toBe(held!.id);
    expect(approved.recommendation.waitingFor?.reason).not.toBe('awaiting_approval');
    const rest = (await t.request('GET', `/v1/recommendations?tool=${TOOL}&limit=200`)).body.items as Answer[];
    expect(rest.find((item) => item.id === held!.id)?.approvedAt).toEqual(expect.any(String));
  });

  it("shows another project's key none of it: no failing tool, no recommendation, no tool, and no apply", async () => {
    const other = await connect(otherKey);
    expect(answerOf(await call(other, 'failing_tools', { from: DAY, to: '2026-06-03' })).tools).toEqual([]);
    expect(answerOf(await call(other, 'recommendations')).recommendations).toEqual([]);
    expect(answerOf(await call(other, 'session_events', { session: 'session-a' })).events).toEqual([]);
    expect(errorText(await call(other, 'tool_details', { tool: TOOL }))).toMatch(/^No tool "prime_factorization" in this project/);
    const [ours] = (await t.request('GET', `/v1/recommendations?tool=${TOOL}&limit=1`)).body.items;
    expect(errorText(await call(other, 'dismiss_recommendation', { id: ours.id }))).toMatch(/^No recommendation ".*" in this project/);
    expect((await t.request('GET', `/v1/recommendations?tool=${TOOL}&limit=1`)).body.items[0].status).toBe(ours.status);
  });

  it('on the default policy the nightly starts a canary itself; the agent reads it, promotes one and stops another, and dismisses a proposal', async () => {
    // the twin of the tests above on the defaults (auto-apply and rollout on): two projects with the same seeded day
    const seeded = async (name: string) => {
      const project = await t.createProject(`${name}-${randomUUID().slice(0, 8)}`);
      const request: TestApp['request'] = (method, path, options = {}) => t.request(method, path, { ...options, key: project.apiKey });
      expect((await request('PUT', `/v1/tools/${TOOL}`, { body: ORIGIN_TOOL })).status).toBe(201);
      await sendEvents({ request, db: t.db, projectId: project.projectId }, seededDay());
      expect((await runNightly({ request }, DAY)).body).toMatchObject({ status: 'succeeded' });
      const client = await connect(project.apiKey);
      const [canary] = answerOf(await call(client, 'tool_details', { tool: TOOL })).canaries;
      return { project, request, client, canary };
    };

    const promoted = await seeded('mcp-promote');
    expect(promoted.canary).toMatchObject({ tool: TOOL, status: 'running', design: 'alternating', previousVersion: 1, canaryVersion: 2 });
    const done = answerOf(await call(promoted.client, 'promote_canary', { id: promoted.canary.id })).canary;
    expect(done).toMatchObject({ id: promoted.canary.id, status: 'promoted' });
    expect(errorText(await call(promoted.client, 'promote_canary', { id: promoted.canary.id }))).toMatch(/canary_not_running/);
    expect(errorText(await call(promoted.client, 'stop_canary', { id: randomUUID() }))).toMatch(/^No canary ".*" in this project/);
    const served = await promoted.request('GET', `/v1/tools/${TOOL}/description`);
    expect(served.body).toMatchObject({ version: 2 });
    expect(answerOf(await call(promoted.client, 'tool_details', { tool: TOOL })).live.version).toBe(2);

    const stopped = await seeded('mcp-stop');
    // another project's key can neither stop nor promote it
    expect(errorText(await call(promoted.client, 'stop_canary', { id: stopped.canary.id }))).toMatch(/^No canary ".*" in this project/);
    const rolledBack = answerOf(await call(stopped.client, 'stop_canary', { id: stopped.canary.id })).canary;
    expect(rolledBack).toMatchObject({ id: stopped.canary.id, status: 'rolled_back' });
    const live = answerOf(await call(stopped.client, 'tool_details', { tool: TOOL })).live;
    expect(live.description).toBe(ORIGIN_TOOL.description);
    expect((await stopped.request('GET', `/v1/tools/${TOOL}/description`)).body.description).toBe(ORIGIN_TOOL.description);

    const { recommendations } = answerOf(await call(stopped.client, 'recommendations', { tool: TOOL, status: 'proposed' }));
    const proposal = recommendations[0];
    expect(proposal).toMatchObject({ status: 'proposed' });
    const dismissed = answerOf(await call(stopped.client, 'dismiss_recommendation', { id: proposal.id })).recommendation;
    expect(dismissed).toMatchObject({ id: proposal.id, status: 'dismissed' });
    const after = answerOf(await call(stopped.client, 'recommendations', { tool: TOOL, status: 'proposed' })).recommendations;
    expect(after.map((item: Answer) => item.id)).not.toContain(proposal.id);
  }, 90_000);

  it('refuses /mcp without a key (401), a body that is not JSON-RPC (400) or a client that cannot read JSON (406), and answers GET with 405: the server is stateless', async () => {
    const unkeyed = await t.request('POST', '/mcp', { key: null, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(unkeyed.status).toBe(401);
    const stream = await t.request('GET', '/mcp');
    expect(stream.status).toBe(405);
    expect(stream.headers.get('allow')).toBe('POST');
    const accept = { accept: 'application/json, text/event-stream' };
    const notJsonRpc = await t.request('POST', '/mcp', { body: { hello: 'world' }, headers: accept });
    expect({ status: notJsonRpc.status, code: notJsonRpc.body.error?.code }).toEqual({ status: 400, code: -32700 });
    const broken = await t.request('POST', '/mcp', { rawBody: '{"jsonrpc":', headers: { ...accept, 'content-type': 'application/json' } });
    expect(broken.status).toBe(400);
    const withoutAccept = await t.request('POST', '/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(withoutAccept.status).toBe(406);
  });
});
