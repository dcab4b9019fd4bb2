import { fakeModel } from '@langchain/core/testing';
import { Toolcoach } from '@toolcoach/sdk';
import { ToolcoachCallbackHandler } from '@toolcoach/sdk/langchain';
import { AIMessage, createAgent, tool } from 'langchain';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { runNightly } from '../support/job-runs';
import { sendEvents } from '../support/send-events';
import { eventually, startTestApp, TestApp } from '../support/test-app';

// Guarded execution (issue 22): the registry serves each tool's guard section, the SDK checks every call of a real
// LangChain.js agent locally against it, corrects what is safe, refuses what is not, and reports both.
const DAY = '2026-03-01';
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(() => t?.close());

/** The agent's tools, each counting the calls its own code received. */
function mathTools() {
  const received: Array<{ tool: string; args: unknown }> = [];
  const primeFactorization = tool(
    (args: { number: number }) => {
      received.push({ tool: 'prime_factorization', args });
      return factorize(args.number);
    },
    {
      name: 'prime_factorization',
      description: 'Returns the prime factors of one integer.',
      schema: z.object({ number: z.number().int().min(2).max(1_000_000) }),
    },
  );
  const factorial = tool(
    (args: { n: number }) => {
      received.push({ tool: 'factorial', args });
      let product = 1;
      for (let i = 2; i <= args.n; i++) product *= i;
      return product;
    },
    { name: 'factorial', description: 'Returns n! for an integer n.', schema: z.object({ n: z.number().int().min(0) }) },
  );
  return { tools: [primeFactorization, factorial], received };
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

const client = () =>
  new Toolcoach({
    baseUrl: t.baseUrl,
    apiKey: t.apiKey,
    flushIntervalMs: 50,
    startupTimeoutMs: 15_000,
    cacheDir: false,
    flushOnExit: false,
    logger: { warn() {} },
  });

/** Factorial overflows above 20, ten times: the nightly learns the limit `n` > 20 and serves it as a warning. */
async function learnFactorialLimit() {
  const at = (i: number) => new Date(Date.parse(`${DAY}T08:00:00Z`) + i * 1000).toISOString();
  const events: Array<Record<string, unknown>> = [];
  for (let i = 0; i < 63; i++) {
    events.push({ id: randomUUID(), tool: 'factorial', status: 'success', arguments: { n: i % 21 }, result: 1, occurredAt: at(i) });
  }
  for (const n of [21, 22, 25, 30, 50, 100, 21, 23, 40, 99]) {
    events.push({
      id: randomUUID(),
      tool: 'factorial',
      status: 'error',
      arguments: { n },
      occurredAt: at(events.length),
      error: { type: 'OverflowError', message: `Factorial calculation overflow for n = ${n}` },
    });
  }
  await sendEvents(t, events);
  const run = await runNightly(t, DAY);
  expect(run.body).toMatchObject({ status: 'succeeded' });
}

describe('the guard section', () => {
  it('is served with each raw tool and its description: the policy, learned limits, and no copy of the schema', async () => {
    await client().loadTools(mathTools().tools);
    await learnFactorialLimit();

    const list = await t.request('GET', '/v1/tools?format=raw');
    const factorial = list.body.tools.find((item: { name: string }) => item.name === 'factorial');
    expect(factorial.guard).toEqual({
      version: factorial.version,
      policy: 'correct',
      schema: 'parameters',
      renames: [],
      limits: [{ path: '/n', bound: 'upper', value: 20, isInclusive: false, reason: 'overflow', evidenceCount: 10 }],
    });
    const description = await t.request('GET', '/v1/tools/factorial/description');
    expect(description.body.guard).toEqual(factorial.guard);
    // a pinned version is served as it was stored
    expect((await t.request('GET', `/v1/tools/factorial/description?version=${factorial.version}`)).body.guard).toBeUndefined();
    // other formats stay the frameworks' own shapes
    expect((await t.request('GET', '/v1/tools?format=openai')).body.tools[0].guard).toBeUndefined();
  });

  it('serves a new policy at once, with a new ETag, and refuses an unknown one naming the field', async () => {
    const before = await t.request('GET', '/v1/tools/factorial/description');
    expect((await t.request('GET', '/v1/guard/policy')).body).toEqual({ mode: 'correct' });
    expect((await t.request('PUT', '/v1/guard/policy', { body: { mode: 'strict' } })).body).toEqual({ mode: 'strict' });
    const after = await t.request('GET', '/v1/tools/factorial/description');
    expect(after.body.guard.policy).toBe('strict');
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));

    const invalid = await t.request('PUT', '/v1/guard/policy', { body: { mode: 'lenient' } });
    expect(invalid.status).toBe(400);
    expect(JSON.stringify(invalid.body)).toContain('/mode');
    await t.request('PUT', '/v1/guard/policy', { body: { mode: 'correct' } });
    expect((await t.request('GET', '/v1/tools?format=raw')).body.tools[0].guard.policy).toBe('correct');
  });
});

describe('a LangChain.js agent with loadTools(tools, { guard: true })', () => {
  it('runs a corrected call, refuses unsafe ones with the fix, and the tool only ever sees valid calls', async () => {
    const tc = client();
    const { tools, received } = mathTools();
    await tc.loadTools(tools, { guard: true });

    const model = fakeModel()
      .respondWithTools([
        { id: 'call-unwrap', name: 'prime_factorization', args: { numbers: [12] } },
        { id: 'call-several', name: 'prime_factorization', args: { numbers: [12, 18] } },
        { id: 'call-limit', name: 'factorial', args: { n: 25 } },
      ])
      .respondWithTools([{ id: 'call-retry', name: 'prime_factorization', args: { number: 18 } }])
      .respond(new AIMessage('12 = 2^2 * 3 and 18 = 2 * 3^2; 25! is too large'));
    const agent = createAgent({ model, tools });
    const result = await agent.invoke(
      { messages: [{ role: 'user', content: 'Factor 12 and 18, and compute 25!' }] },
      { callbacks: [new ToolcoachCallbackHandler(tc, { model: 'gpt-4.1' })] },
    );

    expect(received).toEqual([
      { tool: 'prime_factorization', args: { number: 12 } },
      { tool: 'prime_factorization', args: { number: 18 } },
    ]);
    const replies = Object.fromEntries(
      result.messages
        .filter((message) => message.type === 'tool')
        .map((message) => [
          (message as unknown as { tool_call_id: string }).tool_call_id,
          message as unknown as { content: string; status?: string },
        ]),
    );
    expect(replies['call-unwrap'].content).toBe('[2,2,3]');
    expect(replies['call-several']).toMatchObject({
      status: 'error',
      content: expect.stringContaining('pass one integer per call: call this tool once per item, for each of 12, 18'),
    });
    expect(replies['call-limit']).toMatchObject({
      status: 'error',
      content: expect.stringContaining("'n' is 25; above 20 fails (overflow), learned from 10 failed calls"),
    });
    expect(replies['call-retry'].content).toBe('[2,3,3]');

    // validate gives the model the same words for the same call
    const validated = await t.request('POST', '/v1/tools/prime_factorization/validate', { body: { arguments: { numbers: [12, 18] } } });
    const unknown = validated.body.errors.find((error: { subtype: string }) => error.subtype === 'unknown_argument');
    expect(replies['call-several'].content).toContain(unknown.message);

    expect(await tc.shutdown(5000)).toEqual({ isComplete: true, queued: 0 });
    const stored = await eventually(async () => {
      const { rows } = await t.db.sql.query(
        `SELECT tool_call_id, status, arguments, correction, prevented, error_type, category FROM events
         WHERE tool_call_id LIKE 'call-%' ORDER BY tool_call_id`,
      );
      return rows.length === 4 ? Object.fromEntries(rows.map((row) => [row.tool_call_id, row])) : undefined;
    }, 15_000);
    expect(stored['call-unwrap']).toMatchObject({
      status: 'success',
      arguments: { number: 12 },
      correction: { original: { numbers: [12] }, corrected: { number: 12 }, kinds: ['rename', 'unwrap_array'] },
      prevented: false,
    });
    expect(stored['call-several']).toMatchObject({
      status: 'error',
      arguments: { numbers: [12, 18] },
      correction: null,
      prevented: true,
      error_type: 'GuardRefused',
      category: 'argument_mismatch',
    });
    expect(stored['call-limit']).toMatchObject({ status: 'error', arguments: { n: 25 }, prevented: true, error_type: 'GuardRefused' });
    expect(stored['call-retry']).toMatchObject({ status: 'success', correction: null, prevented: false });

    const counts = await t.request(
      'GET',
      `/v1/tools/prime_factorization/guard-stats?from=${new Date(Date.now() - 86_400_000).toISOString()}`,
    );
    expect(counts.status).toBe(200);
    expect(counts.body.totals).toEqual({ corrected: 1, prevented: 1, byKind: { rename: 1, unwrap_array: 1 } });
  });

  it('checks against the tools own schemas when the server is unreachable, and says so once', async () => {
    const warnings: string[] = [];
    const tc = new Toolcoach({
      baseUrl: 'http://127.0.0.1:9',
      apiKey: 'k',
      startupTimeoutMs: 2000,
      cacheDir: false,
      flushOnExit: false,
      logger: { warn: (message) => warnings.push(message) },
    });
    const { tools, received } = mathTools();
    await tc.loadTools(tools, { guard: true });
    expect(warnings.filter((message) => message.includes("the tools' own schemas only"))).toHaveLength(1);
    expect(tc.checkArguments('prime_factorization', { numbers: [7] })).toMatchObject({
      action: 'correct',
      correction: { corrected: { number: 7 } },
    });
    // no learned limit without the server: 25 is within the tool's own schema
    expect(tc.checkArguments('factorial', { n: 25 })).toEqual({ action: 'run' });
    expect(received).toEqual([]);
    await tc.shutdown(100);
  });
});
