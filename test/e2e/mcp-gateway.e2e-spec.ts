import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResult, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { AddressInfo, connect as connectTcp, createServer as createTcpServer, Server as TcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAllAwayFromDayChange, runNightly } from '../support/job-runs';
import { eventually, startTestApp, TestApp } from '../support/test-app';
import { TEST_STARTUP_TIMEOUT_ENV } from '../support/startup-timeout';

// The MCP gateway (mcp-gateway/, built by `npm run pretest`) between the official SDK's Client and a real upstream
// MCP server (test/support/mcp-math-server.js), over stdio and over Streamable HTTP, against the real backend.
const ROOT = join(__dirname, '..', '..');
const GATEWAY = join(ROOT, 'mcp-gateway', 'dist', 'cli.js');
const UPSTREAM = join(ROOT, 'test', 'support', 'mcp-math-server.js');
const MISSPELLED = 'prime_factorise';

let t: TestApp;
const cacheDir = mkdtempSync(join(tmpdir(), 'toolcoach-mcp-cache-'));
const children: ChildProcess[] = [];

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  for (const child of children) child.kill();
  await t?.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

interface Connection {
  client: Client;
  stderr: () => string;
  listChanges: () => number;
  close(): Promise<void>;
}

interface GatewaySettings {
  url: string;
  apiKey: string;
  cacheDir?: string;
  extraArgs?: string[];
}

function gatewayEnv(settings: GatewaySettings): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    TOOLCOACH_URL: settings.url,
    TOOLCOACH_API_KEY: settings.apiKey,
    ...TEST_STARTUP_TIMEOUT_ENV,
    TOOLCOACH_AGENT: 'mcp-e2e',
    TOOLCOACH_POLL_INTERVAL_MS: '200',
    TOOLCOACH_CACHE_DIR: settings.cacheDir ?? 'none',
  };
}

async function connectClient(transport: StdioClientTransport | StreamableHTTPClientTransport, stderr: () => string, stop: () => void) {
  const client = new Client({ name: 'scripted-mcp-client', version: '1.0.0' });
  let listChanges = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    listChanges++;
  });
  await client.connect(transport);
  return {
    client,
    stderr,
    listChanges: () => listChanges,
    async close() {
      await client.close();
      stop();
    },
  };
}

/** The client starts the gateway, which starts the upstream: what a desktop client's three-line configuration does. */
async function connectStdio(settings: GatewaySettings): Promise<Connection> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [GATEWAY, ...(settings.extraArgs ?? []), '--', process.execPath, UPSTREAM],
    env: gatewayEnv(settings),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return connectClient(
    transport,
    () => stderr,
    () => undefined,
  );
}

/** Starts a process and answers the first match of `pattern` in its output (stdout or stderr). */
function startProcess(
  args: string[],
  env: Record<string, string>,
  pattern: RegExp,
): Promise<{ match: string; output: () => string; child: ChildProcess }> {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = output.match(pattern);
      if (match) resolve({ match: match[1], output: () => output, child });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${output}`)));
  });
}

/** An upstream serving Streamable HTTP and the gateway in HTTP mode in front of it, both on ports the OS chose. */
async function connectHttp(settings: GatewaySettings): Promise<Connection> {
  const upstream = await startProcess([UPSTREAM, '--http'], process.env as Record<string, string>, /listening (\S+)/);
  const gateway = await startProcess(
    [GATEWAY, ...(settings.extraArgs ?? []), '--upstream-url', upstream.match, '--port', '0'],
    gatewayEnv(settings),
    /listening on (\S+),/,
  );
  return connectClient(new StreamableHTTPClientTransport(new URL(gateway.match)), gateway.output, () => {
    gateway.child.kill();
    upstream.child.kill();
  });
}

/** Does any description quote this name ('x', "x" or `x`)? Warnings quote the names they are about. */
function isQuoted(descriptions: string[], name: string): boolean {
  return descriptions.some((text) => [`'${name}'`, `"${name}"`, `\`${name}\``].some((quoted) => text.includes(quoted)));
}

/** The largest value a description states for a quoted argument ("'n' above 20 fails"). */
function statedLimit(descriptions: string[], argument: string): number | undefined {
  for (const text of descriptions) {
    const match = text.match(new RegExp(`'${argument}' above (\\d+)`));
    if (match) return Number(match[1]);
  }
  return undefined;
}

/**
 * A scripted model that reads the descriptions it was given and keeps three habits until a description warns against
 * them: a list where one integer belongs, a factorial too large, a misspelled tool name. Four calls per task.
 */
async function runTasks(connection: Connection, tasks: number, firstTask: number): Promise<{ calls: number; failed: number }> {
  const { tools } = await connection.client.listTools();
  const describe = (name?: string) =>
    tools.filter((tool) => name === undefined || tool.name === name).map((tool) => tool.description ?? '');
  let calls = 0;
  let failed = 0;
  const call = async (name: string, args: Record<string, unknown>) => {
    calls++;
    const result = (await connection.client.callTool({ name, arguments: args })) as CallToolResult;
    if (result.isError) failed++;
  };
  for (let task = firstTask; task < firstTask + tasks; task++) {
    const [a, b, c] = [12 + task, 30 + task, 97 + task];
    if (isQuoted(describe('prime_factorization'), 'numbers')) {
      await call('prime_factorization', { number: a });
    } else {
      await call('prime_factorization', { numbers: [a, b] });
    }
    await call('factorial', { n: 10 + (task % 11) });
    await call('factorial', { n: Math.min(25, statedLimit(describe('factorial'), 'n') ?? 25) });
    const isMisspelling = task % 2 === 0 && !isQuoted(describe(), MISSPELLED);
    await call(isMisspelling ? MISSPELLED : 'prime_factorization', { number: c });
  }
  return { calls, failed };
}

async function storedEvents(projectId: string): Promise<number> {
  const { rows } = await t.db.sql.query('SELECT count(*)::int AS n FROM events WHERE project_id = $1', [projectId]);
  return rows[0].n;
}

// The nightly measures a warning's effect from 30 calls of the tool on each side (with and without the warning):
// 20 tasks of four calls give prime_factorization 30 calls and factorial 40 per phase.
const TASKS_PER_PHASE = 20;

const today = () => new Date().toISOString().slice(0, 10);

describe.each([
  ['stdio', connectStdio],
  ['Streamable HTTP', connectHttp],
])('over %s, the gateway closes the loop for an unchanged MCP server and client', (_mode, connect) => {
  let project: { projectId: string; apiKey: string };
  let connection: Connection;
  const api = (method: string, path: string) => t.request(method, path, { key: project.apiKey });

  beforeAllAwayFromDayChange(async () => {
    // the calls are stamped by the gateway at the real time and both nightlies are for today: never start a mode in the
    // last two minutes of a UTC day (a mode takes about 15 s), nor in its first seconds
    project = await t.createProject(`mcp-${_mode.replace(/\W/g, '')}-${Date.now()}`);
    // the project's policies as a new one has them: each learned warning starts as an alternating canary, which the
    // gateway (one side as a whole) is served between the first nightly and the next
    connection = await connect({ url: t.baseUrl, apiKey: project.apiKey });
  }, 150_000);
  afterAll(() => connection?.close());

  it("lists the upstream's tools as registered v1, inputSchema unchanged, and passes the rest of the protocol through", async () => {
    const { tools } = await connection.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'count_and_wait',
      'count_slowly',
      'factorial',
      'prime_factorization',
      'release',
    ]);
    const factorial = tools.find((tool) => tool.name === 'factorial')!;
    expect(factorial.description).toBe('Returns n! for a non-negative integer n.');
    expect(factorial.inputSchema).toEqual(expect.objectContaining({ properties: { n: expect.objectContaining({ type: 'integer' }) } }));

    const registered = await api('GET', '/v1/tools/factorial/description');
    expect(registered.body).toMatchObject({ version: 1, parameters: factorial.inputSchema });

    expect(connection.client.getServerVersion()).toEqual({ name: 'math-upstream', version: '1.0.0' });
    expect(connection.client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      resources: {},
      prompts: {},
      logging: {},
    });
    expect(await connection.client.readResource({ uri: 'math://primes' })).toEqual({
      contents: [{ uri: 'math://primes', text: '2 3 5 7 11 13' }],
    });
    const prompt = await connection.client.getPrompt({ name: 'factor', arguments: { number: '12' } });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Factor 12.' } }]);
  });

  it('reports 80 calls, 50 of them mistakes, each with the served version and the session, unknown names as unknown_tool', async () => {
    const before = await storedEvents(project.projectId);
    const phase1 = await runTasks(connection, TASKS_PER_PHASE, 0);
    expect(phase1).toEqual({ calls: 80, failed: 50 });
    await eventually(async () => ((await storedEvents(project.projectId)) - before >= 80 ? true : undefined), 20_000);

    const misspelled = (await api('GET', `/v1/events?tool=${MISSPELLED}&limit=10`)).body.items;
    expect(misspelled).toHaveLength(10);
    expect(misspelled[0]).toMatchObject({ category: 'unknown_tool', framework: 'mcp', agent: 'mcp-e2e', sessionId: expect.any(String) });
    const overflow = (await api('GET', '/v1/events?tool=factorial&status=error&limit=50')).body.items;
    expect(overflow).toHaveLength(20);
    expect(overflow[0]).toMatchObject({ descriptionVersion: 1, arguments: { n: 25 }, durationMs: expect.any(Number) });
    expect(overflow[0].sessionId).toBe(misspelled[0].sessionId);
  });

  it('tells the client after the nightly (list_changed), and the new tools/list carries the learned warnings', async () => {
    const run = await runNightly({ request: (method, path) => api(method, path) }, today());
    expect(run.body).toMatchObject({ status: 'succeeded' });

    // the gateway may refresh while the nightly is still applying one warning after another: it then says
    // list_changed again for the rest, and a client lists again on each, as this one does until all three are served
    const learned = (tools: Array<{ name: string; description?: string }>) =>
      ['factorial', 'prime_factorization'].every((name) => tools.find((tool) => tool.name === name)?.description?.includes('mistakes'));
    const tools = await eventually(async () => {
      if (connection.listChanges() === 0) return undefined;
      const listed = (await connection.client.listTools()).tools;
      return learned(listed) && listed.find((tool) => tool.name === 'prime_factorization')!.description!.includes(MISSPELLED)
        ? listed
        : undefined;
    }, 10_000);
    const description = (name: string) => tools.find((tool) => tool.name === name)!.description!;
    expect(description('factorial')).toContain("'n' above 20 fails");
    expect(description('prime_factorization')).toContain("'numbers'");
    expect(description('prime_factorization')).toContain(`\`${MISSPELLED}\``);
  });

  it('makes fewer mistakes in a second phase of the same session, and the next nightly measures each warning as helped', async () => {
    // One client session throughout, as a real MCP client keeps it: it re-listed after list_changed. The nightly
    // counts each call to the misspelled name against the version the session had loaded when it made the call.
    const before = await storedEvents(project.projectId);
    const phase2 = await runTasks(connection, TASKS_PER_PHASE, TASKS_PER_PHASE);
    expect(phase2).toEqual({ calls: 80, failed: 0 });
    await eventually(async () => ((await storedEvents(project.projectId)) - before >= 80 ? true : undefined), 20_000);

    const run = await runNightly({ request: (method, path) => api(method, path) }, today());
    expect(run.body).toMatchObject({ status: 'succeeded' });
    const { body } = await api('GET', '/v1/recommendations?status=applied');
    // the warnings learned from this session's mistakes; the definitions' own (schema_quality) are test/e2e/cold-start's
    const learned = body.items.filter((r: { kind: string }) => r.kind !== 'schema_quality');
    const verdicts = learned.map((r: { tool: string; kind: string; effect: { verdict: string } | null }) => [
      r.tool,
      r.kind,
      r.effect?.verdict,
    ]);
    expect(verdicts.sort()).toEqual([
      ['factorial', 'learned_limit', 'helped'],
      ['prime_factorization', 'misnamed_tool', 'helped'],
      ['prime_factorization', 'wrong_argument_name', 'helped'],
    ]);
    const sessions = await t.db.sql.query('SELECT DISTINCT session_id FROM events WHERE project_id = $1', [project.projectId]);
    expect(sessions.rows).toHaveLength(1);
    // the gateway was served each canary between the two nightlies: the second decided every one of them
    const canaries = (await api('GET', '/v1/rollout/canaries')).body.items as Array<{ tool: string; status: string; decision: unknown }>;
    const learnedCanaries = canaries.filter((canary) => canary.status !== 'running');
    expect(learnedCanaries.map((canary) => [canary.tool, canary.status]).sort()).toEqual([
      ['factorial', 'promoted'],
      ['prime_factorization', 'promoted'],
    ]);
  });

  it("passes the upstream's progress to the client and the client's cancellation to the upstream", async () => {
    const progress: number[] = [];
    const counted = connection.client.callTool({ name: 'count_and_wait', arguments: { to: 3 } }, undefined, {
      onprogress: ({ progress: step }) => void progress.push(step),
    });
    // the upstream answers only when released: every notification reaches the client before the answer exists
    await eventually(async () => (progress.length === 3 ? true : undefined));
    expect(progress).toEqual([1, 2, 3]);
    expect((await connection.client.callTool({ name: 'release', arguments: {} })).content).toEqual([{ type: 'text', text: 'cancelled 0' }]);
    expect((await counted).content).toEqual([{ type: 'text', text: 'counted to 3' }]);

    const stop = new AbortController();
    const seen: number[] = [];
    const cancelled = connection.client.callTool({ name: 'count_and_wait', arguments: { to: 2 } }, undefined, {
      signal: stop.signal,
      onprogress: ({ progress: step }) => {
        seen.push(step);
        if (step === 2) stop.abort(new Error('the user stopped it'));
      },
    });
    await expect(cancelled).rejects.toThrow('the user stopped it');
    expect(seen).toEqual([1, 2]);
    // the upstream's handler saw its request cancelled (over HTTP the cancellation is a POST of its own)
    const released = await eventually(async () => {
      const result = (await connection.client.callTool({ name: 'release', arguments: {} })) as CallToolResult;
      return result.content[0].type === 'text' && result.content[0].text === 'cancelled 1' ? result : undefined;
    });
    expect(released.isError).toBeFalsy();
  });

  it('with --check-arguments, answers arguments past a learned limit or against the schema without calling the upstream, and reports them', async () => {
    const checking = await connect({ url: t.baseUrl, apiKey: project.apiKey, extraArgs: ['--check-arguments'] });
    try {
      await checking.client.listTools();
      const call = async (name: string, args: Record<string, unknown>) =>
        (await checking.client.callTool({ name, arguments: args })) as CallToolResult & { content: { type: 'text'; text: string }[] };
      const pastLimit = await call('factorial', { n: 23 });
      expect(pastLimit.isError).toBe(true);
      expect(pastLimit.content[0].text).toMatch(
        /^factorial was not called: 'n' is 23; above 20 fails \(overflow\), learned from \d+ failed calls$/,
      );
      // the upstream's own answer to n > 20 is its overflow error, which this is not
      expect(pastLimit.content[0].text).not.toContain('exceeds Number.MAX_SAFE_INTEGER');
      const wrongName = await call('prime_factorization', { numbers: [12, 30] });
      expect(wrongName.isError).toBe(true);
      expect(wrongName.content[0].text).toContain("'numbers'");
      expect(wrongName.content[0].text).not.toContain('MCP error');
      expect((await call('factorial', { n: 5 })).content).toEqual([{ type: 'text', text: '120' }]);
      // in the project's policy (correct), a safe mistake reaches the upstream corrected
      expect((await call('factorial', { n: '5' })).content).toEqual([{ type: 'text', text: '120' }]);

      const reported = await eventually(async () => {
        const { rows } = await t.db.sql.query(
          `SELECT tool, status, prevented, error_message, session_id FROM events WHERE project_id = $1 AND error_message LIKE '% was not called: %' ORDER BY tool`,
          [project.projectId],
        );
        return rows.length === 2 ? rows : undefined;
      }, 20_000);
      // refused calls are reported as the SDKs report them: prevented, never run
      expect(reported.map((row: { tool: string; status: string; prevented: boolean }) => [row.tool, row.status, row.prevented])).toEqual([
        ['factorial', 'error', true],
        ['prime_factorization', 'error', true],
      ]);
      const corrected = await eventually(async () => {
        const { rows } = await t.db.sql.query(
          `SELECT arguments, correction FROM events WHERE project_id = $1 AND tool = 'factorial' AND correction IS NOT NULL`,
          [project.projectId],
        );
        return rows.length === 1 ? rows[0] : undefined;
      }, 20_000);
      expect(corrected).toEqual({
        arguments: { n: '5' },
        correction: { original: { n: '5' }, corrected: { n: 5 }, kinds: ['numeric_string'] },
      });
    } finally {
      await checking.close();
    }
  });
});

/** A TCP door in front of the API on a port the OS chose: closed, it resets every connection, as a down server does. */
async function startDoor(target: string): Promise<{ url: string; open(): void; shut(): void; close(): Promise<void> }> {
  const { port: targetPort } = new URL(target);
  let isOpen = true;
  const server: TcpServer = createTcpServer((socket) => {
    if (!isOpen) {
      socket.resetAndDestroy();
      return;
    }
    const upstream = connectTcp(Number(targetPort), '127.0.0.1');
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    open: () => (isOpen = true),
    shut: () => (isOpen = false),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('with toolcoach down, the client still lists and calls tools', () => {
  it("serves the descriptions cached on disk (else the upstream's), says so once on stderr, and delivers the events when toolcoach is back", async () => {
    const project = await t.createProject(`mcp-down-${Date.now()}`);
    const door = await startDoor(t.baseUrl);
    try {
      // a first session with toolcoach up registers the tools and caches what it served, a warning added by hand included
      const first = await connectStdio({ url: door.url, apiKey: project.apiKey, cacheDir });
      await first.client.listTools();
      const added = await t.request('POST', '/v1/tools/factorial/warnings', {
        key: project.apiKey,
        body: { text: 'Pass n as an integer.', kind: 'manual' },
      });
      expect(added.status).toBe(201);
      await eventually(async () => (first.listChanges() > 0 ? true : undefined));
      const warned = (await first.client.listTools()).tools.find((tool) => tool.name === 'factorial')!.description;
      expect(warned).toContain('Pass n as an integer.');
      await first.close();

      door.shut();
      const cached = await connectStdio({ url: door.url, apiKey: project.apiKey, cacheDir });
      const uncached = await connectStdio({ url: door.url, apiKey: project.apiKey });
      expect((await cached.client.listTools()).tools.find((tool) => tool.name === 'factorial')!.description).toBe(warned);
      expect((await uncached.client.listTools()).tools.find((tool) => tool.name === 'factorial')!.description).toBe(
        'Returns n! for a non-negative integer n.',
      );
      for (const session of [cached, uncached]) {
        const result = (await session.client.callTool({ name: 'factorial', arguments: { n: 6 } })) as CallToolResult;
        expect(result.content).toEqual([{ type: 'text', text: '720' }]);
        await session.client.callTool({ name: 'factorial', arguments: { n: 7 } });
      }
      expect(cached.stderr().match(/could not load tool descriptions/g)).toHaveLength(1);
      expect(cached.stderr()).toContain('using the descriptions cached on disk');
      expect(uncached.stderr().match(/could not load tool descriptions/g)).toHaveLength(1);
      expect(uncached.stderr()).toContain('using the tool descriptions as given');

      door.open();
      const stored = await eventually(async () => {
        const { rows } = await t.db.sql.query(
          `SELECT session_id, description_version, arguments FROM events WHERE project_id = $1 AND tool = 'factorial' AND (arguments->>'n')::int IN (6, 7)`,
          [project.projectId],
        );
        return rows.length === 4 ? rows : undefined;
      }, 40_000);
      // the cached description was version 2; the upstream's own description has no registry version
      expect(stored.map((row: { description_version: number | null }) => row.description_version).sort()).toEqual([2, 2, null, null]);
      await Promise.all([cached.close(), uncached.close()]);
    } finally {
      await door.close();
    }
  }, 90_000);
});

describe('the client configuration of docs/integrations/mcp.md (examples/mcp/client-config.json)', () => {
  it('starts the gateway through its bin with node, serves the registered tools and reports a call as the agent it names', async () => {
    const config = JSON.parse(readFileSync(join(ROOT, 'examples', 'mcp', 'client-config.json'), 'utf8'));
    const math = config.mcpServers.math as { command: string; args: string[]; env: Record<string, string> };
    expect(math.command).toBe('node');
    // as a client runs it, with the checkout for /path/to/toolcoach and this test's server and app for the placeholders
    const separator = math.args.indexOf('--');
    const gatewayArgs = math.args.slice(0, separator + 1).map((arg) => arg.replace('/path/to/toolcoach', ROOT));
    const project = await t.createProject(`mcp-config-${Date.now().toString(36)}`);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...gatewayArgs, process.execPath, UPSTREAM],
      env: {
        ...(process.env as Record<string, string>),
        ...math.env,
        TOOLCOACH_URL: t.baseUrl,
        TOOLCOACH_API_KEY: project.apiKey,
        ...TEST_STARTUP_TIMEOUT_ENV,
        TOOLCOACH_CACHE_DIR: 'none',
      },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const connection = await connectClient(
      transport,
      () => stderr,
      () => undefined,
    );
    try {
      const { tools } = await connection.client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('factorial');
      const registered = await t.request('GET', '/v1/tools', { key: project.apiKey });
      expect(registered.body.tools.map((tool: { name: string }) => tool.name)).toContain('factorial');
      await connection.client.callTool({ name: 'factorial', arguments: { n: 5 } });
      const stored = await eventually(async () => {
        const items = (await t.request('GET', '/v1/events?tool=factorial', { key: project.apiKey })).body.items;
        return items.length === 1 ? items : undefined;
      }, 15_000);
      expect(stored[0]).toMatchObject({ tool: 'factorial', status: 'success', agent: 'desktop', framework: 'mcp' });
    } finally {
      await connection.close();
    }
  }, 60_000);
});
