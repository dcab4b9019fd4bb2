import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { Toolcoach, ToolEvent } from '../src';
import { loadMastraTools, ToolcoachProcessor } from '../src/mastra';
import { ScriptedCall, scriptedModel } from './scripted-language-model';
import { ScriptedServer } from './scripted-server';

// A real Mastra agent (@mastra/core 1.x) with the AI SDK's scripted model (MockLanguageModelV3, which Mastra takes as
// it takes any AI SDK v6 model).
function factorialTool() {
  return createTool({
    id: 'factorial',
    description: 'Returns n! for an integer n.',
    inputSchema: z.object({ n: z.number().int().min(0) }),
    execute: async ({ n }) => {
      if (n > 20) throw new RangeError(`factorial overflow for n > 20: ${n}! exceeds Number.MAX_SAFE_INTEGER`);
      if (n === 13) return { ok: false, error: 'unlucky number' };
      let product = 1;
      for (let i = 2; i <= n; i++) product *= i;
      return { value: product };
    },
  });
}

function offlineClient() {
  const tc = new Toolcoach({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', cacheDir: false, flushOnExit: false, logger: { warn() {} } });
  const events: ToolEvent[] = [];
  jest.spyOn(tc, 'report').mockImplementation((event) => void events.push(event));
  return { tc, events };
}

const FAILING_TURNS: ScriptedCall[][] = [
  [{ id: 'call-ok', name: 'factorial', input: '{"n":5}' }],
  [{ id: 'call-thrown', name: 'factorial', input: '{"n":100}' }],
  [{ id: 'call-unknown', name: 'factorial_of', input: '{"n":5}' }],
  [{ id: 'call-invalid', name: 'factorial', input: '{"number":5}' }],
  [{ id: 'call-malformed', name: 'factorial', input: '{"n": 5' }],
  [{ id: 'call-handled', name: 'factorial', input: '{"n":13}' }],
];

describe('ToolcoachProcessor', () => {
  it('reports each call of a generate run once: success, thrown, unknown tool, schema-invalid, malformed JSON, returned failure', async () => {
    const { tc, events } = offlineClient();
    const { model } = scriptedModel(FAILING_TURNS);
    const isFailure = (result: unknown) => (result as { ok?: unknown } | null)?.ok === false;
    const agent = new Agent({
      id: 'math-agent',
      name: 'math-agent',
      instructions: 'Compute factorials.',
      model,
      tools: { factorial: factorialTool() },
      outputProcessors: [new ToolcoachProcessor(tc, { isFailure })],
    });
    const result = await agent.generate('Compute 5!, 100! and 13!', { maxSteps: 10 });
    expect(result.text).toBe('done');

    const byCall = Object.fromEntries(events.map((event) => [event.toolCallId, event]));
    expect(events.map((event) => event.toolCallId)).toEqual(FAILING_TURNS.map(([call]) => call.id));
    const runId = byCall['call-ok'].runId;
    for (const event of events) {
      expect(event).toMatchObject({ framework: 'mastra', model: 'scripted-model', runId, traceId: runId, sessionId: runId });
    }
    expect(byCall['call-ok']).toMatchObject({ tool: 'factorial', status: 'success', arguments: { n: 5 }, result: { value: 120 } });
    expect(byCall['call-ok'].durationMs).toEqual(expect.any(Number));
    // what the tool threw, not Mastra's TOOL_EXECUTION_FAILED wrapper
    expect(byCall['call-thrown']).toMatchObject({
      status: 'error',
      arguments: { n: 100 },
      error: { type: 'RangeError', message: 'factorial overflow for n > 20: 100! exceeds Number.MAX_SAFE_INTEGER' },
    });
    expect(byCall['call-thrown'].durationMs).toEqual(expect.any(Number));
    expect(byCall['call-unknown']).toMatchObject({
      tool: 'factorial_of',
      status: 'error',
      arguments: { n: 5 },
      error: { type: 'ToolNotFoundError', message: expect.stringContaining('Tool "factorial_of" not found. Available tools: factorial') },
    });
    expect(byCall['call-invalid']).toMatchObject({
      status: 'error',
      arguments: { number: 5 },
      error: { type: 'ToolInputValidationError', message: expect.stringMatching(/^Tool input validation failed for factorial\b/) },
    });
    // the text as the model sent it, which Mastra could not parse
    expect(byCall['call-malformed']).toMatchObject({
      status: 'error',
      arguments: '{"n": 5',
      error: { type: 'MalformedToolArguments', message: expect.stringContaining('are not valid JSON') },
    });
    expect(byCall['call-handled']).toMatchObject({
      status: 'error',
      result: { ok: false, error: 'unlucky number' },
      error: { type: 'ReportedFailure', message: 'unlucky number' },
    });
    // nothing ran for the calls that never reached the tool
    for (const id of ['call-unknown', 'call-invalid', 'call-malformed']) expect(byCall[id].durationMs).toBeUndefined();
  });

  it('reports the calls of a stream run, with the session of the client view and the given agent name', async () => {
    const { tc, events } = offlineClient();
    const { model } = scriptedModel([
      [
        { id: 'call-a', name: 'factorial', input: '{"n":3}' },
        { id: 'call-b', name: 'factorial_of', input: '{}' },
      ],
    ]);
    const agent = new Agent({
      id: 'math-agent',
      name: 'math-agent',
      instructions: 'Compute factorials.',
      model,
      tools: { factorial: factorialTool() },
      outputProcessors: [new ToolcoachProcessor(tc.forSession('conversation-7'), { agent: 'calculator' })],
    });
    jest.spyOn(Toolcoach.prototype, 'report').mockImplementation((event) => void events.push(event));
    const output = await agent.stream('Compute 3!', { maxSteps: 5 });
    expect(await output.text).toBe('done');
    // the two calls of one step run side by side: the unknown one may finish first
    const reported = events.map(({ toolCallId, status, sessionId, agent }) => ({ toolCallId, status, sessionId, agent }));
    expect(reported.sort((a, b) => a.toolCallId!.localeCompare(b.toolCallId!))).toEqual([
      { toolCallId: 'call-a', status: 'success', sessionId: 'conversation-7', agent: 'calculator' },
      { toolCallId: 'call-b', status: 'error', sessionId: 'conversation-7', agent: 'calculator' },
    ]);
  });
});

describe('loadMastraTools', () => {
  let server: ScriptedServer;
  beforeEach(async () => {
    server = await ScriptedServer.start();
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await server.close();
  });

  const serveRegistry = (guard: unknown = null) => server.serveRegistryWithWarning(3, guard);

  const client = () =>
    new Toolcoach({ baseUrl: server.baseUrl, apiKey: 'k', cacheDir: false, flushOnExit: false, refreshIntervalMs: false });

  it("registers the agent's tools under the names the model calls them by, and the next run's model reads the served description", async () => {
    serveRegistry();
    const tc = client();
    const tools = { factorial: factorialTool() };
    expect(await loadMastraTools(tc, tools)).toBe(tools);
    const registered = server.requests.find((r) => r.url === '/v1/tools:bulk')!.body.tools;
    expect(registered).toEqual([
      {
        name: 'factorial',
        description: 'Returns n! for an integer n.',
        parameters: expect.objectContaining({
          type: 'object',
          properties: { n: expect.objectContaining({ type: 'integer', minimum: 0 }) },
        }),
      },
    ]);
    expect(tc.descriptionVersionOf('factorial')).toBe(3);

    const { model, descriptionsSeen } = scriptedModel([[{ id: 'call-1', name: 'factorial', input: '{"n":4}' }]]);
    const agent = new Agent({ id: 'a', name: 'a', instructions: 'x', model, tools, outputProcessors: [new ToolcoachProcessor(tc)] });
    const reported: ToolEvent[] = [];
    jest.spyOn(tc, 'report').mockImplementation((event) => void reported.push(event));
    await agent.generate('4!', { maxSteps: 3 });
    expect(descriptionsSeen()[0]).toEqual(["Returns n! for an integer n.\nWARNING: 'n' above 20 fails."]);
    expect(reported[0]).toMatchObject({ toolCallId: 'call-1', descriptionVersion: 3 });

    // loading the same tools again registers the description they were given, not the served one
    await loadMastraTools(tc, tools);
    expect(server.requests.filter((r) => r.url === '/v1/tools:bulk').at(-1)!.body.tools[0].description).toBe(
      'Returns n! for an integer n.',
    );
    await tc.shutdown(50);
  });

  it("with guard, refuses a call the learned limit says fails with Mastra's error result, reported once as prevented", async () => {
    serveRegistry({
      version: 3,
      policy: 'correct',
      schema: 'parameters',
      renames: [],
      limits: [{ path: '/n', bound: 'upper', value: 20, isInclusive: true, reason: 'overflow', evidenceCount: 10 }],
    });
    const tc = client();
    const tools = { factorial: factorialTool() };
    await loadMastraTools(tc, tools, { guard: true });
    const { model, seen } = scriptedModel([[{ id: 'call-big', name: 'factorial', input: '{"n":25}' }]]);
    const agent = new Agent({ id: 'a', name: 'a', instructions: 'x', model, tools, outputProcessors: [new ToolcoachProcessor(tc)] });
    const reported: ToolEvent[] = [];
    jest.spyOn(tc, 'report').mockImplementation((event) => void reported.push(event));
    await agent.generate('25!', { maxSteps: 3 });
    expect(reported).toEqual([
      expect.objectContaining({
        toolCallId: 'call-big',
        status: 'error',
        prevented: true,
        error: expect.objectContaining({ type: 'GuardRefused' }),
      }),
    ]);
    expect(reported[0].durationMs).toBeUndefined();
    // the model read the refusal as the call's result
    const toolMessage = seen[1].prompt.find((message) => message.role === 'tool');
    expect(JSON.stringify(toolMessage)).toContain(reported[0].error!.message.slice(0, 40));
    await tc.shutdown(50);
  });
});
