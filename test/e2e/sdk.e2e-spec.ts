import { randomUUID } from 'node:crypto';
import { fakeModel } from '@langchain/core/testing';
import { Toolcoach } from '@toolcoach/sdk';
import { ToolcoachCallbackHandler } from '@toolcoach/sdk/langchain';
import { AIMessage, createAgent, tool } from 'langchain';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { runAgent } from '../../examples/langchain-js/agent';
import { eventually, startTestApp, TestApp } from '../support/test-app';

// The SDK as agents install it (the built package), a real LangChain.js agent with a scripted model, the real backend.
let app: TestApp;
let cacheDir: string;

beforeAll(async () => {
  app = await startTestApp();
  cacheDir = mkdtempSync(join(tmpdir(), 'toolcoach-sdk-e2e-'));
});

afterAll(async () => {
  await app?.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

function mathTools() {
  const primeFactorization = tool(({ number }) => factorize(number), {
    name: 'prime_factorization',
    description: 'Returns the prime factors of one integer.',
    schema: z.object({ number: z.number().int().min(2).max(1_000_000) }),
  });
  const factorial = tool(
    ({ n }) => {
      if (n > 20) throw new RangeError(`factorial overflow for n > 20: ${n}! exceeds Number.MAX_SAFE_INTEGER`);
      let product = 1;
      for (let i = 2; i <= n; i++) product *= i;
      return product;
    },
    { name: 'factorial', description: 'Returns n! for an integer n.', schema: z.object({ n: z.number().int().min(0) }) },
  );
  return [primeFactorization, factorial];
}

function factorize(value: number): number[] {
  const factors: number[] = [];
  for (let d = 2; value > 1; d++) {
    while (value % d === 0) {
      factors.push(d);
      value /= d;
    }
  }
  return factors;
}

it('reports every tool call of a LangChain.js agent, categorized, with the description version it loaded', async () => {
  // a generous start-up budget: this test is about the loop, and CI runs other suites beside it on two cores
  const tc = new Toolcoach({
    baseUrl: app.baseUrl,
    apiKey: app.apiKey,
    flushIntervalMs: 50,
    startupTimeoutMs: 15_000,
    cacheDir,
    flushOnExit: false,
    logger: { warn() {} },
  });
  const tools = await tc.loadTools(mathTools());
  expect(tc.descriptionSource).toBe('server');
  const version = tc.descriptionVersionOf('prime_factorization');
  expect(version).toBeGreaterThanOrEqual(1);

  const model = fakeModel()
    .respondWithTools([
      { id: 'call-numbers', name: 'prime_factorization', args: { numbers: [12, 18] } },
      { id: 'call-overflow', name: 'factorial', args: { n: 100 } },
      { id: 'call-unknown', name: 'prime_factors', args: { number: 12 } },
    ])
    .respondWithTools([{ id: 'call-ok', name: 'prime_factorization', args: { number: 360 } }])
    .respond(new AIMessage('360 = 2^3 * 3^2 * 5'));
  const agent = createAgent({ model, tools });
  await agent.invoke(
    { messages: [{ role: 'user', content: 'Factor 12 and 18, and compute 100!' }] },
    { callbacks: [new ToolcoachCallbackHandler(tc, { model: 'gpt-4.1' })], metadata: { agent: 'math-agent', team: 'core' } },
  );
  expect(await tc.shutdown(5000)).toEqual({ isComplete: true, queued: 0 });
  expect(tc.stats()).toMatchObject({ sent: 4, dropped: 0, rejected: 0 });

  const stored = await eventually(async () => {
    const response = await app.request('GET', '/v1/events?limit=50');
    const items = response.body.items as Array<Record<string, unknown> & { toolCallId: string }>;
    return items.length === 4 && items.every((e) => e.category !== undefined) ? items : undefined;
  }, 15_000);
  const byCall = Object.fromEntries(stored.map((e) => [e.toolCallId, e]));
  expect(byCall['call-numbers']).toMatchObject({
    tool: 'prime_factorization',
    status: 'error',
    category: 'argument_mismatch',
    agent: 'math-agent',
    framework: 'langchainjs',
    descriptionVersion: version,
  });
  expect(byCall['call-overflow']).toMatchObject({ tool: 'factorial', status: 'error', category: 'overflow', arguments: { n: 100 } });
  expect(byCall['call-unknown']).toMatchObject({ tool: 'prime_factors', status: 'error', category: 'unknown_tool' });
  expect(byCall['call-ok']).toMatchObject({
    tool: 'prime_factorization',
    status: 'success',
    category: null,
    descriptionVersion: version,
    result: '[2,2,2,3,3,5]',
  });
  expect(byCall['call-ok'].runId).toEqual(expect.any(String));
  // every event, also of calls that never reached a tool: the model, its run in one trace, the run's metadata
  expect(new Set(stored.map((e) => e.traceId)).size).toBe(1);
  expect(stored.map((e) => e.sessionId)).toEqual(stored.map((e) => e.traceId));
  for (const event of stored) {
    expect(event).toMatchObject({ model: 'gpt-4.1', runId: expect.any(String), traceId: expect.any(String), metadata: { team: 'core' } });
  }
  expect(byCall['call-unknown'].durationMs).toBeNull();
  expect(byCall['call-numbers'].durationMs).toBeNull();
  expect(byCall['call-overflow'].durationMs).toEqual(expect.any(Number));
});

it('sends to TOOLCOACH_URL with TOOLCOACH_API_KEY when the code names neither', async () => {
  const saved = { url: process.env.TOOLCOACH_URL, key: process.env.TOOLCOACH_API_KEY };
  process.env.TOOLCOACH_URL = app.baseUrl;
  process.env.TOOLCOACH_API_KEY = app.apiKey;
  try {
    const tc = new Toolcoach({ cacheDir: false, flushOnExit: false, startupTimeoutMs: 15_000, logger: { warn() {} } });
    await tc.loadTools(mathTools());
    expect(tc.descriptionSource).toBe('server');
    tc.report({ id: 'from-env-1', tool: 'factorial', status: 'success', arguments: { n: 3 } });
    expect(await tc.shutdown(5000)).toEqual({ isComplete: true, queued: 0 });
    expect(await app.storedEvent('from-env-1')).toMatchObject({ tool: 'factorial', status: 'success' });
  } finally {
    for (const [name, value] of [
      ['TOOLCOACH_URL', saved.url],
      ['TOOLCOACH_API_KEY', saved.key],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
});

it('starts an agent with the tools as given when the server cannot be reached, without throwing', async () => {
  const warnings: string[] = [];
  const tc = new Toolcoach({
    baseUrl: 'http://127.0.0.1:9',
    apiKey: app.apiKey,
    startupTimeoutMs: 300,
    cacheDir: false,
    flushOnExit: false,
    logger: { warn: (m) => warnings.push(m) },
  });
  const tools = await tc.loadTools(mathTools());
  expect(tools.map((t) => t.description)).toEqual(['Returns the prime factors of one integer.', 'Returns n! for an integer n.']);
  expect(warnings).toHaveLength(1);
  await tc.shutdown(10);
});

it('accepts the SDK identity and dropped count next to the events, and echoes them', async () => {
  const client = { sdk: '@toolcoach/sdk', version: '0.1.0', dropped: 7 };
  const response = await app.request('POST', '/v1/events', { body: { events: [{ tool: 'factorial', status: 'success' }], client } });
  expect(response.status).toBe(202);
  expect(response.body).toMatchObject({ accepted: 1, client });
});

it('runs the LangChain.js example of the docs as shown: tools registered, calls reported, a bad call corrected by the guard', async () => {
  const saved = { url: process.env.TOOLCOACH_URL, key: process.env.TOOLCOACH_API_KEY };
  const project = await app.createProject(`example-${randomUUID().slice(0, 8)}`);
  process.env.TOOLCOACH_URL = app.baseUrl;
  process.env.TOOLCOACH_API_KEY = project.apiKey;
  try {
    const model = fakeModel()
      .respondWithTools([
        { id: 'example-ok', name: 'prime_factorization', args: { number: 360 } },
        { id: 'example-corrected', name: 'prime_factorization', args: { numbers: [12] } },
        { id: 'example-refused', name: 'prime_factorization', args: { numbers: [12, 18] } },
      ])
      .respond(new AIMessage('360 = 2^3 * 3^2 * 5; 12 = 2^2 * 3'));
    const answer = await runAgent(model, mathTools(), 'Factor 360, 12 and 18');
    expect(answer.messages.at(-1)?.content).toBe('360 = 2^3 * 3^2 * 5; 12 = 2^2 * 3');

    const tools = await app.request('GET', '/v1/tools', { key: project.apiKey });
    expect(tools.body.tools.map((t: { name: string }) => t.name).sort()).toEqual(['factorial', 'prime_factorization']);
    const stored = await eventually(async () => {
      const response = await app.request('GET', '/v1/events?limit=50', { key: project.apiKey });
      const items = response.body.items as Array<Record<string, unknown> & { toolCallId: string }>;
      return items.length === 3 ? Object.fromEntries(items.map((e) => [e.toolCallId, e])) : undefined;
    }, 15_000);
    expect(stored['example-ok']).toMatchObject({ status: 'success', agent: 'math-agent', correction: null, prevented: false });
    expect(stored['example-corrected']).toMatchObject({
      status: 'success',
      result: '[2,2,3]',
      correction: { original: { numbers: [12] }, corrected: { number: 12 }, kinds: expect.arrayContaining(['rename', 'unwrap_array']) },
    });
    expect(stored['example-refused']).toMatchObject({ status: 'error', prevented: true, category: 'argument_mismatch' });
  } finally {
    for (const [name, value] of [
      ['TOOLCOACH_URL', saved.url],
      ['TOOLCOACH_API_KEY', saved.key],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
});
