import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResult, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, startTestApp, TestApp } from '../support/test-app';
import { TEST_STARTUP_TIMEOUT_ENV } from '../support/startup-timeout';

// The MCP gateway (mcp-gateway/, built by `npm run pretest`) combining two upstreams for one stdio client: our math
// server over stdio and a second one over Streamable HTTP, with and without name prefixing.
const ROOT = join(__dirname, '..', '..');
const GATEWAY = join(ROOT, 'mcp-gateway', 'dist', 'cli.js');
const UPSTREAM = join(ROOT, 'test', 'support', 'mcp-math-server.js');
const UPSTREAM_TOOLS = ['count_and_wait', 'count_slowly', 'factorial', 'prime_factorization', 'release'];

let t: TestApp;
let httpUpstream: { url: string; child: ChildProcess };
const dir = mkdtempSync(join(tmpdir(), 'toolcoach-mcp-combined-'));
const upstreamsFile = join(dir, 'upstreams.json');

beforeAll(async () => {
  t = await startTestApp();
  const child = spawn(process.execPath, [UPSTREAM, '--http'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = output.match(/listening (\S+)/);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`the HTTP upstream exited with ${code}`)));
  });
  httpUpstream = { url, child };
  writeFileSync(upstreamsFile, JSON.stringify({ mcpServers: { math: { command: process.execPath, args: [UPSTREAM] }, calc: { url } } }));
});

afterAll(async () => {
  httpUpstream?.child.kill();
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function connectCombined(apiKey: string, extraArgs: string[]) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [GATEWAY, '--upstreams', upstreamsFile, ...extraArgs],
    env: {
      ...(process.env as Record<string, string>),
      TOOLCOACH_URL: t.baseUrl,
      TOOLCOACH_API_KEY: apiKey,
      ...TEST_STARTUP_TIMEOUT_ENV,
      TOOLCOACH_POLL_INTERVAL_MS: '200',
      TOOLCOACH_CACHE_DIR: 'none',
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'scripted-mcp-client', version: '1.0.0' });
  let listChanges = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void listChanges++);
  await client.connect(transport);
  return { client, stderr: () => stderr, listChanges: () => listChanges };
}

const text = (result: unknown) => (result as CallToolResult).content.map((block) => (block.type === 'text' ? block.text : '')).join('');

describe('the gateway combining two upstreams for one client', () => {
  it('with --prefix-names, serves <upstream>__<tool>, routes each call to its upstream with its progress, and reports every call', async () => {
    const project = await t.createProject(`mcp-combined-${Date.now()}`);
    const { client } = await connectCombined(project.apiKey, ['--prefix-names']);
    try {
      expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: true } });
      const { tools } = await client.listTools();
      // math's tools first, then calc's, as the upstreams file orders them
      expect(tools.map((tool) => tool.name.split('__')[0])).toEqual([...Array(5).fill('math'), ...Array(5).fill('calc')]);
      expect(tools.map((tool) => tool.name).sort()).toEqual(
        [...UPSTREAM_TOOLS.map((name) => `math__${name}`), ...UPSTREAM_TOOLS.map((name) => `calc__${name}`)].sort(),
      );
      const registered = await t.request('GET', '/v1/tools/calc__factorial/description', { key: project.apiKey });
      expect(registered.body).toMatchObject({ version: 1, parameters: tools.find((tool) => tool.name === 'calc__factorial')!.inputSchema });

      expect(text(await client.callTool({ name: 'math__factorial', arguments: { n: 5 } }))).toBe('120');
      expect(text(await client.callTool({ name: 'calc__prime_factorization', arguments: { number: 12 } }))).toBe('[2,2,3]');
      const overflow = (await client.callTool({ name: 'calc__factorial', arguments: { n: 25 } })) as CallToolResult;
      expect(overflow.isError).toBe(true);
      await expect(client.callTool({ name: 'math__factorail', arguments: { n: 5 } })).rejects.toThrow(
        /^MCP error -32602: Tool math__factorail not found$/,
      );
      // the math upstream's own name, unprefixed, is no tool of this gateway
      await expect(client.callTool({ name: 'factorial', arguments: { n: 5 } })).rejects.toThrow('Tool factorial not found');

      const progress: number[] = [];
      const counted = client.callTool({ name: 'calc__count_and_wait', arguments: { to: 3 } }, undefined, {
        onprogress: ({ progress: step }) => void progress.push(step),
      });
      await eventually(async () => (progress.length === 3 ? true : undefined));
      expect(progress).toEqual([1, 2, 3]);
      // a release of the other upstream leaves this call waiting; its own upstream's ends it
      expect(text(await client.callTool({ name: 'math__release', arguments: {} }))).toBe('cancelled 0');
      expect(text(await client.callTool({ name: 'calc__release', arguments: {} }))).toBe('cancelled 0');
      expect(text(await counted)).toBe('counted to 3');

      const stored = await eventually(async () => {
        const { rows } = await t.db.sql.query(
          `SELECT tool, status, category, session_id FROM events WHERE project_id = $1 AND tool IN ('math__factorial', 'calc__prime_factorization', 'calc__factorial', 'math__factorail', 'factorial') ORDER BY tool`,
          [project.projectId],
        );
        return rows.length === 5 &&
          rows.every((row: { category: string | null; status: string }) => row.status === 'success' || row.category)
          ? rows
          : undefined;
      }, 20_000);
      expect(stored.map((row: { tool: string; status: string; category: string | null }) => [row.tool, row.status, row.category])).toEqual([
        ['calc__factorial', 'error', expect.any(String)],
        ['calc__prime_factorization', 'success', null],
        ['factorial', 'error', 'unknown_tool'],
        ['math__factorail', 'error', 'unknown_tool'],
        ['math__factorial', 'success', null],
      ]);
      expect(new Set(stored.map((row: { session_id: string }) => row.session_id)).size).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('without prefixing, serves the names as they are, a name both list from the first upstream, and says so on stderr', async () => {
    const project = await t.createProject(`mcp-combined-plain-${Date.now()}`);
    const { client, stderr } = await connectCombined(project.apiKey, []);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(UPSTREAM_TOOLS);
      await client.listTools();
      expect(stderr().match(/is listed by math, calc; served from math/g)).toHaveLength(UPSTREAM_TOOLS.length);
      expect(stderr()).toContain('toolcoach-mcp: tool factorial is listed by math, calc; served from math (--prefix-names serves each)');
      expect(text(await client.callTool({ name: 'factorial', arguments: { n: 6 } }))).toBe('720');
    } finally {
      await client.close();
    }
  });

  it('tells the client when the registry changes what it was served', async () => {
    const project = await t.createProject(`mcp-combined-change-${Date.now()}`);
    const { client, listChanges } = await connectCombined(project.apiKey, ['--prefix-names']);
    try {
      await client.listTools();
      const added = await t.request('POST', '/v1/tools/calc__factorial/warnings', {
        key: project.apiKey,
        body: { text: 'Pass n up to 20.', kind: 'manual' },
      });
      expect(added.status).toBe(201);
      await eventually(async () => (listChanges() > 0 ? true : undefined));
      const { tools } = await client.listTools();
      expect(tools.find((tool) => tool.name === 'calc__factorial')!.description).toContain('Pass n up to 20.');
      expect(tools.find((tool) => tool.name === 'math__factorial')!.description).toBe('Returns n! for a non-negative integer n.');
    } finally {
      await client.close();
    }
  });
});
