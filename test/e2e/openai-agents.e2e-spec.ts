import {
  Agent,
  getGlobalTraceProvider,
  type ModelProvider,
  Runner,
  setDefaultOpenAITracingExporter,
  setTraceProcessors,
  setTracingDisabled,
} from '@openai/agents';
import { assistantMessage, functionCall, modelResponder, ScriptedModel } from '@openai/agents/testing';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAgent } from '../../examples/openai-agents/agent';
import { beforeAllAwayFromDayChange, runNightly } from '../support/job-runs';
import { eventually, startTestApp, TestApp } from '../support/test-app';

// Issue 36: a real OpenAI Agents SDK (`@openai/agents` 0.20) agent, run through the documented example
// (docs/integrations/openai-agents.md) with the built @toolcoach/sdk/openai-agents, its model the SDK's own scripted
// model (`@openai/agents/testing`) behind a model provider, against the app on its default configuration (rollout
// on, alternating canaries). A day of mistakes, the nightly, and the next run's model reads the warning it applied.
const ROOT = join(__dirname, '..', '..');
const today = () => new Date().toISOString().slice(0, 10);
const CONVERSATIONS = 5; // the default policy applies a warning from 5 occurrences on

let app: TestApp;
let home: string;
const savedEnv = {
  HOME: process.env.HOME,
  TOOLCOACH_URL: process.env.TOOLCOACH_URL,
  TOOLCOACH_API_KEY: process.env.TOOLCOACH_API_KEY,
  OPENAI_API_KEY: process.env.OPENAI_API_KEY,
};
const openAiRequests: string[] = [];
const realFetch = globalThis.fetch;

beforeAllAwayFromDayChange(async () => {
  // every call is stamped at the real time and the nightly is for today: never start in a day's last two minutes
  app = await startTestApp();
  // the example's client reads the server from the environment, and caches descriptions under ~/.cache
  home = mkdtempSync(join(tmpdir(), 'toolcoach-openai-agents-e2e-'));
  // with a key, the SDK's own exporter would send every trace to api.openai.com: the example must have replaced it
  Object.assign(process.env, { HOME: home, TOOLCOACH_URL: app.baseUrl, TOOLCOACH_API_KEY: app.apiKey, OPENAI_API_KEY: 'sk-unused' });
  // the Agents SDK turns tracing off when NODE_ENV is test; an agent runs with it on (the example keeps it local)
  setTracingDisabled(false);
  // requests to OpenAI are counted and answered here, never sent
  globalThis.fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!new URL(url).hostname.endsWith('openai.com')) return realFetch(input, init);
    openAiRequests.push(url);
    return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
  };
});

afterAll(async () => {
  globalThis.fetch = realFetch;
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await app?.close();
  rmSync(home, { recursive: true, force: true });
});

interface ShownTool {
  type: string;
  name: string;
  description: string;
}

/**
 * One conversation's model, which reads the descriptions it is given: it calls prime_factorization with a word for
 * a number until a description warns about 'number', asks for 100! and a misspelt tool, sends one malformed JSON
 * text, and factors 360 correctly.
 */
function readerModel(conversation: string): { provider: ModelProvider; shown: () => ShownTool[] } {
  const model = new ScriptedModel([
    modelResponder(({ request }) => {
      const prime = (request.tools as ShownTool[]).find((tool) => tool.name === 'prime_factorization')!;
      const isWarned = /'number'/.test(prime.description.slice('Returns the prime factors of one integer.'.length));
      return [
        functionCall('prime_factorization', { number: 360 }, { callId: `${conversation}-ok` }),
        functionCall('factorial', { n: 100 }, { callId: `${conversation}-throw` }),
        functionCall('prime_factors', { number: 12 }, { callId: `${conversation}-unknown` }),
        functionCall('prime_factorization', { number: isWarned ? 12 : 'twelve' }, { callId: `${conversation}-schema` }),
        functionCall('factorial', '{"n": 3', { callId: `${conversation}-json` }),
      ];
    }),
    [assistantMessage('360 = 2^3 * 3^2 * 5')],
  ]);
  return { provider: { getModel: () => model }, shown: () => model.calls[0].request.tools as ShownTool[] };
}

it('stores every call of an Agents SDK run once with its category, registers the tools, and the nightly warning reaches the next model', async () => {
  for (let i = 0; i < CONVERSATIONS; i++) {
    const { provider } = readerModel(`day1-c${i}`);
    expect(await runAgent('Factor 360 and 12, and compute 100!', `day1-c${i}`, provider)).toBe('360 = 2^3 * 3^2 * 5');
  }

  const stored = await eventually(async () => {
    const items = (await app.request('GET', '/v1/events?limit=100')).body.items as Array<Record<string, unknown> & { toolCallId: string }>;
    return items.length >= CONVERSATIONS * 5 && items.every((event) => event.category !== undefined) ? items : undefined;
  }, 20_000);
  expect(stored).toHaveLength(CONVERSATIONS * 5);
  expect(new Set(stored.map((event) => event.toolCallId)).size).toBe(CONVERSATIONS * 5);
  const byCall = Object.fromEntries(stored.map((event) => [event.toolCallId, event]));
  for (let i = 0; i < CONVERSATIONS; i++) {
    const conversation = `day1-c${i}`;
    const common = { framework: 'openai-agents-js', agent: 'math-agent', model: 'gpt-4.1', sessionId: conversation };
    expect(byCall[`${conversation}-ok`]).toMatchObject({ ...common, tool: 'prime_factorization', status: 'success', category: null });
    expect(byCall[`${conversation}-throw`]).toMatchObject({ ...common, tool: 'factorial', status: 'error', category: 'overflow' });
    expect(byCall[`${conversation}-unknown`]).toMatchObject({
      ...common,
      tool: 'prime_factors',
      status: 'error',
      category: 'unknown_tool',
    });
    expect(byCall[`${conversation}-schema`]).toMatchObject({
      ...common,
      tool: 'prime_factorization',
      status: 'error',
      category: 'argument_mismatch',
      arguments: { number: 'twelve' },
    });
    expect(byCall[`${conversation}-json`]).toMatchObject({ ...common, tool: 'factorial', status: 'error', category: 'argument_mismatch' });
  }

  const tools = (await app.request('GET', '/v1/tools?format=raw')).body.tools as Array<{ name: string; parameters: unknown }>;
  expect(tools.map((tool) => tool.name).sort()).toEqual(['factorial', 'prime_factorization']);
  expect(tools.find((tool) => tool.name === 'prime_factorization')!.parameters).toMatchObject({
    type: 'object',
    properties: { number: { type: 'integer', minimum: 2, maximum: 1_000_000 } },
    required: ['number'],
  });

  expect((await runNightly(app, today())).body).toMatchObject({ status: 'succeeded' });
  const warnings = (await app.request('GET', '/v1/tools/prime_factorization/warnings')).body.warnings as Array<{
    text: string;
    kind: string;
  }>;
  const learned = warnings.filter((warning) => warning.kind !== 'schema_quality');
  expect(learned.map((warning) => warning.text)).toEqual(expect.arrayContaining([expect.stringContaining("'number'")]));

  // the next conversation's model is given the description with the warning, and no longer sends a word
  const next = readerModel('day2-c0');
  await runAgent('Factor 360 and 12, and compute 100!', 'day2-c0', next.provider);
  const shown = next.shown().find((tool) => tool.name === 'prime_factorization')!;
  for (const warning of learned) expect(shown.description).toContain(warning.text);
  const corrected = await eventually(async () => {
    const items = (await app.request('GET', '/v1/events?limit=100')).body.items as Array<Record<string, unknown>>;
    return items.find((event) => event.toolCallId === 'day2-c0-schema' && event.category !== undefined);
  }, 20_000);
  expect(corrected).toMatchObject({ status: 'success', arguments: { number: 12 }, descriptionVersion: expect.any(Number) });

  // nothing went to OpenAI: no model (scripted) and no trace export (the example replaced the exporter)
  await getGlobalTraceProvider().forceFlush();
  expect(openAiRequests).toEqual([]);
}, 120_000);

it("sends traces to api.openai.com when the SDK's default exporter is left in place (what the example's first line prevents)", async () => {
  setDefaultOpenAITracingExporter();
  try {
    const model = new ScriptedModel([[assistantMessage('360 = 2^3 * 3^2 * 5')]]);
    await new Runner({ modelProvider: { getModel: () => model } }).run(new Agent({ name: 'math-agent', model: 'gpt-4.1' }), 'Factor 360');
    await getGlobalTraceProvider().forceFlush();
    expect(openAiRequests).toContain('https://api.openai.com/v1/traces/ingest');
  } finally {
    setTraceProcessors([]);
    openAiRequests.splice(0);
  }
});

it('shows in docs/integrations/openai-agents.md exactly the example this test runs', () => {
  const page = readFileSync(join(ROOT, 'docs', 'integrations', 'openai-agents.md'), 'utf8');
  const block = /```ts example=examples\/openai-agents\/agent\.ts\n([\s\S]*?)```/.exec(page);
  expect(block?.[1]).toBe(readFileSync(join(ROOT, 'examples', 'openai-agents', 'agent.ts'), 'utf8'));
});
