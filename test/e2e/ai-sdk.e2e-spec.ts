import { tool } from 'ai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { runAgent } from '../../examples/ai-sdk/agent';
import { ScriptedStep, scriptedModel } from '../../sdk/test/scripted-ai-model';
import { beforeAllAwayFromDayChange, runNightly } from '../support/job-runs';
import { eventually, startTestApp, TestApp } from '../support/test-app';

// Issue 36: a real AI SDK (`ai` 6) ToolLoopAgent, scripted by the AI SDK's own MockLanguageModelV3, run through the
// documented example (docs/integrations/ai-sdk.md) with the built @toolcoach/sdk/ai, against the app on its default
// configuration (rollout on, alternating canaries). One day of mistakes, the nightly, and the next run's model reads
// the warning it applied.
const ROOT = join(__dirname, '..', '..');
const today = () => new Date().toISOString().slice(0, 10);

let app: TestApp;
let home: string;
const savedEnv = { HOME: process.env.HOME, TOOLCOACH_URL: process.env.TOOLCOACH_URL, TOOLCOACH_API_KEY: process.env.TOOLCOACH_API_KEY };

beforeAllAwayFromDayChange(async () => {
  // every call is stamped at the real time and the nightly is for today: never start in a day's last two minutes
  app = await startTestApp();
  // the example's client reads the server from the environment, and caches descriptions under ~/.cache
  home = mkdtempSync(join(tmpdir(), 'toolcoach-ai-sdk-e2e-'));
  Object.assign(process.env, { HOME: home, TOOLCOACH_URL: app.baseUrl, TOOLCOACH_API_KEY: app.apiKey });
});

afterAll(async () => {
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await app?.close();
  rmSync(home, { recursive: true, force: true });
});

function mathTools() {
  return {
    prime_factorization: tool({
      description: 'Returns the prime factors of one integer.',
      inputSchema: z.object({ number: z.number().int().min(2).max(1_000_000) }),
      execute: async ({ number }) => factorize(number),
    }),
    factorial: tool({
      description: 'Returns n! for an integer n.',
      inputSchema: z.object({ n: z.number().int().min(0) }),
      execute: async ({ n }) => {
        if (n > 20) throw new RangeError(`factorial overflow for n > 20: ${n}! exceeds Number.MAX_SAFE_INTEGER`);
        let product = 1;
        for (let i = 2; i <= n; i++) product *= i;
        return product;
      },
    }),
  };
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

const call = (id: string, name: string, input: string) => ({ id, name, input });

/** Day 1: a misspelled tool, two numbers in one call, malformed JSON, factorials past 20 (thrown), and successes. */
const DAY_ONE: ScriptedStep[] = [
  [
    call('d1-unknown', 'prime_factorise', '{"number":360}'),
    call('d1-invalid', 'prime_factorization', '{"numbers":[360,12]}'),
    call('d1-overflow-1', 'factorial', '{"n":25}'),
  ],
  [
    call('d1-ok', 'prime_factorization', '{"number":360}'),
    call('d1-malformed', 'factorial', '{"n": 7'),
    call('d1-overflow-2', 'factorial', '{"n":30}'),
  ],
  [
    call('d1-overflow-3', 'factorial', '{"n":40}'),
    call('d1-overflow-4', 'factorial', '{"n":50}'),
    call('d1-overflow-5', 'factorial', '{"n":100}'),
    call('d1-overflow-6', 'factorial', '{"n":21}'),
    call('d1-factorial-ok', 'factorial', '{"n":5}'),
    call('d1-factorial-20', 'factorial', '{"n":20}'),
  ],
  '360 = 2^3 * 3^2 * 5; 5! = 120; the larger factorials overflow.',
];

const DAY_ONE_CALL_IDS = DAY_ONE.flatMap((step) => (typeof step === 'string' ? [] : step.map((c) => c.id)));

type StoredEvent = Record<string, unknown> & { toolCallId: string; category: string | null };

it('documents the example it runs, as it is', () => {
  const page = readFileSync(join(ROOT, 'docs', 'integrations', 'ai-sdk.md'), 'utf8');
  const block = /```ts example=examples\/ai-sdk\/agent\.ts\n([\s\S]*?)```/.exec(page);
  expect(block?.[1]).toBe(readFileSync(join(ROOT, 'examples', 'ai-sdk', 'agent.ts'), 'utf8'));
});

it('stores every call of an AI SDK agent once with its category, and the next run is given the warning the nightly applied', async () => {
  const dayOne = scriptedModel(DAY_ONE, 'gpt-4.1');
  expect(await runAgent(dayOne, mathTools(), 'Factor 360 and compute some factorials.', 'conversation-1')).toContain('overflow');

  const stored = await eventually(async () => {
    const items = (await app.request('GET', '/v1/events?limit=200')).body.items as StoredEvent[];
    return items.length >= DAY_ONE_CALL_IDS.length && items.every((event) => event.category !== undefined) ? items : undefined;
  }, 20_000);
  // each call once
  expect(stored.map((event) => event.toolCallId).sort()).toEqual([...DAY_ONE_CALL_IDS].sort());
  const byCall = Object.fromEntries(stored.map((event) => [event.toolCallId, event]));
  const common = { framework: 'ai-sdk', agent: 'math-agent', model: 'gpt-4.1', sessionId: 'conversation-1' };
  expect(byCall['d1-ok']).toMatchObject({
    ...common,
    tool: 'prime_factorization',
    status: 'success',
    category: null,
    result: [2, 2, 2, 3, 3, 5],
  });
  expect(byCall['d1-factorial-ok']).toMatchObject({ ...common, tool: 'factorial', status: 'success', category: null, result: 120 });
  for (const id of ['d1-overflow-1', 'd1-overflow-2', 'd1-overflow-3', 'd1-overflow-4', 'd1-overflow-5', 'd1-overflow-6']) {
    expect(byCall[id]).toMatchObject({
      ...common,
      tool: 'factorial',
      status: 'error',
      category: 'overflow',
      error: { type: 'RangeError' },
    });
  }
  expect(byCall['d1-unknown']).toMatchObject({ ...common, tool: 'prime_factorise', status: 'error', category: 'unknown_tool' });
  expect(byCall['d1-invalid']).toMatchObject({
    ...common,
    tool: 'prime_factorization',
    status: 'error',
    category: 'argument_mismatch',
    arguments: { numbers: [360, 12] },
    error: { type: 'AI_InvalidToolInputError' },
  });
  expect(byCall['d1-malformed']).toMatchObject({
    ...common,
    tool: 'factorial',
    status: 'error',
    category: 'argument_mismatch',
    arguments: '{"n": 7',
  });
  // calls that reached no tool have no duration; those that ran do
  for (const id of ['d1-unknown', 'd1-invalid', 'd1-malformed']) expect(byCall[id].durationMs).toBeNull();
  expect(byCall['d1-ok'].durationMs).toEqual(expect.any(Number));

  // the tools are registered with their schemas; the misspelled name is not a tool
  const registered = (await app.request('GET', '/v1/tools?format=raw')).body.tools as Array<{
    name: string;
    baseDescription: string;
    parameters: unknown;
  }>;
  expect(registered.map((t) => t.name).sort()).toEqual(['factorial', 'prime_factorization']);
  expect(registered.find((t) => t.name === 'factorial')).toMatchObject({
    baseDescription: 'Returns n! for an integer n.',
    parameters: expect.objectContaining({ properties: { n: expect.objectContaining({ type: 'integer', minimum: 0 }) } }),
  });

  expect((await runNightly(app, today())).body).toMatchObject({ status: 'succeeded' });
  const warnings = (await app.request('GET', '/v1/tools/factorial/warnings')).body.warnings as Array<{ text: string }>;
  expect(warnings.length).toBeGreaterThan(0);

  // the next conversation: its model is given the description with the warning, the one served to its session
  const dayTwo = scriptedModel([[call('d2-ok', 'factorial', '{"n":6}')], '6! = 720']);
  expect(await runAgent(dayTwo, mathTools(), 'Compute 6!.', 'conversation-2')).toBe('6! = 720');
  const given = dayTwo.doGenerateCalls[0].tools!.find((t) => t.name === 'factorial') as { description: string };
  const served = await app.request('GET', '/v1/tools/factorial/description', { headers: { 'x-toolcoach-session': 'conversation-2' } });
  expect(given.description).toBe(served.body.description);
  expect(given.description).toContain("'n' above 20 fails");
  expect(given.description).not.toBe('Returns n! for an integer n.');
  const dayTwoCall = await eventually(async () => {
    const items = (await app.request('GET', '/v1/events?tool=factorial&limit=200')).body.items as StoredEvent[];
    return items.find((event) => event.toolCallId === 'd2-ok');
  }, 20_000);
  expect(dayTwoCall).toMatchObject({ status: 'success', descriptionVersion: served.body.version, sessionId: 'conversation-2' });
}, 120_000);
