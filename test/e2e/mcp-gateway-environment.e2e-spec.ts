import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, startTestApp, TestApp } from '../support/test-app';
import { TEST_STARTUP_TIMEOUT_ENV } from '../support/startup-timeout';

// A real third-party MCP server whose `get-env` tool answers its whole environment
// (@modelcontextprotocol/server-everything) behind the gateway (mcp-gateway/, built by `npm run pretest`): the
// project's API key, and every other TOOLCOACH_* variable, must never reach it, nor be stored with the event.
const ROOT = join(__dirname, '..', '..');
const GATEWAY = join(ROOT, 'mcp-gateway', 'dist', 'cli.js');
const EVERYTHING = [process.execPath, require.resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'];

let t: TestApp;
const dir = mkdtempSync(join(tmpdir(), 'toolcoach-mcp-env-'));

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The gateway's environment: the key and settings a user gives it, plus variables of the user's shell. */
function gatewayEnv(apiKey: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    TOOLCOACH_URL: t.baseUrl,
    TOOLCOACH_API_KEY: apiKey,
    ...TEST_STARTUP_TIMEOUT_ENV,
    TOOLCOACH_AGENT: 'env-e2e',
    TOOLCOACH_CACHE_DIR: 'none',
    TOOLCOACH_POLL_INTERVAL_MS: '60000',
    SHELL_SECRET_NOT_CONFIGURED: 'never-passed-7a1',
    WEATHER_API_HOST: 'weather.example',
    ...extra,
  };
}

/** Starts the gateway as an MCP client would, calls `tool` and answers the upstream's environment. */
async function upstreamEnvThrough(args: string[], env: Record<string, string>, tool: string): Promise<Record<string, string>> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [GATEWAY, ...args], env, stderr: 'pipe' });
  const client = new Client({ name: 'scripted-mcp-client', version: '1.0.0' });
  await client.connect(transport);
  try {
    // a combined gateway routes the names it listed
    await client.listTools();
    const result = (await client.callTool({ name: tool, arguments: {} })) as CallToolResult;
    const text = result.content.find((block) => block.type === 'text');
    return JSON.parse(text && text.type === 'text' ? text.text : '{}') as Record<string, string>;
  } finally {
    await client.close();
  }
}

/** The project's stored get-env events, every column as text (what the database holds) and as the API answers it. */
async function storedGetEnvEvents(project: { projectId: string; apiKey: string }, tool: string): Promise<{ rows: string; api: string }> {
  const rows = await eventually(async () => {
    const { rows } = await t.db.sql.query('SELECT to_jsonb(e)::text AS row FROM events e WHERE project_id = $1 AND tool = $2', [
      project.projectId,
      tool,
    ]);
    return rows.length > 0 ? rows.map((row: { row: string }) => row.row).join('\n') : undefined;
  }, 20_000);
  const response = await t.request('GET', `/v1/events?tool=${encodeURIComponent(tool)}`, { key: project.apiKey });
  expect(response.status).toBe(200);
  expect(response.body.items?.length ?? response.body.events?.length).toBeGreaterThan(0);
  return { rows, api: JSON.stringify(response.body) };
}

function expectNoGatewayVariables(upstreamEnv: Record<string, string>, apiKey: string) {
  expect(Object.keys(upstreamEnv).filter((name) => name.toUpperCase().startsWith('TOOLCOACH_'))).toEqual([]);
  expect(Object.values(upstreamEnv)).not.toContain(apiKey);
  expect(upstreamEnv.SHELL_SECRET_NOT_CONFIGURED).toBeUndefined();
  // what every process needs still comes through
  expect(upstreamEnv.PATH).toBe(process.env.PATH);
}

describe('the environment the gateway gives the server it fronts', () => {
  it('over stdio, passes only the defaults and the --env variables; the key reaches neither the upstream nor the stored event', async () => {
    const project = await t.createProject(`env-stdio-${Date.now()}`);
    const env = await upstreamEnvThrough(
      ['--env', 'WEATHER_API_HOST', '--env', 'UPSTREAM_MODE=offline', '--', ...EVERYTHING],
      gatewayEnv(project.apiKey, { TOOLCOACH_UPSTREAM_ENV: 'LANG_OF_UPSTREAM', LANG_OF_UPSTREAM: 'fr' }),
      'get-env',
    );
    expectNoGatewayVariables(env, project.apiKey);
    expect(env).toMatchObject({ WEATHER_API_HOST: 'weather.example', UPSTREAM_MODE: 'offline', LANG_OF_UPSTREAM: 'fr' });
    const stored = await storedGetEnvEvents(project, 'get-env');
    expect(stored.rows).toContain('WEATHER_API_HOST');
    expect(stored.rows).not.toContain(project.apiKey);
    expect(stored.api).not.toContain(project.apiKey);
  });

  it('combining upstreams, passes each its own "env" and the TOOLCOACH_UPSTREAM_ENV variables, and nothing of the gateway else', async () => {
    const project = await t.createProject(`env-combined-${Date.now()}`);
    const file = join(dir, 'upstreams.json');
    const [command, ...args] = EVERYTHING;
    writeFileSync(file, JSON.stringify({ mcpServers: { everything: { command, args, env: { OWN_SETTING: 'from-file' } } } }));
    const env = await upstreamEnvThrough(
      ['--upstreams', file, '--prefix-names'],
      gatewayEnv(project.apiKey, { TOOLCOACH_UPSTREAM_ENV: 'WEATHER_API_HOST' }),
      'everything__get-env',
    );
    expectNoGatewayVariables(env, project.apiKey);
    expect(env).toMatchObject({ WEATHER_API_HOST: 'weather.example', OWN_SETTING: 'from-file' });
    const stored = await storedGetEnvEvents(project, 'everything__get-env');
    expect(stored.rows).not.toContain(project.apiKey);
  });

  it.each([
    ['--env TOOLCOACH_API_KEY', ['--env', 'TOOLCOACH_API_KEY'], {}],
    ['--env toolcoach_api_key=x', ['--env', 'toolcoach_api_key=x'], {}],
    ['TOOLCOACH_UPSTREAM_ENV naming the key', [], { TOOLCOACH_UPSTREAM_ENV: 'PATH,TOOLCOACH_API_KEY' }],
  ])('refuses to start when asked to pass a TOOLCOACH_* variable (%s), naming it', async (_label, flags, extra) => {
    const child = spawn(process.execPath, [GATEWAY, ...flags, '--', ...EVERYTHING], {
      env: gatewayEnv('tc_never_used', extra),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/TOOLCOACH_API_KEY: TOOLCOACH_\* variables are the gateway's own/i);
  });

  it('refuses an upstreams file whose "env" names a TOOLCOACH_* variable', async () => {
    const file = join(dir, 'leaky-upstreams.json');
    const [command, ...args] = EVERYTHING;
    writeFileSync(file, JSON.stringify({ mcpServers: { everything: { command, args, env: { TOOLCOACH_API_KEY: 'tc_x' } } } }));
    const child = spawn(process.execPath, [GATEWAY, '--upstreams', file], { env: gatewayEnv('tc_never_used'), stdio: 'pipe' });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await new Promise<number | null>((resolve) => child.once('exit', resolve))).toBe(2);
    expect(stderr).toContain(`mcpServers."everything": "env" names a TOOLCOACH_* variable`);
  });
});
