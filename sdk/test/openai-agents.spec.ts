import {
  Agent,
  ModelBehaviorError,
  type ModelProvider,
  OpenAIProvider,
  Runner,
  setTraceProcessors,
  setTracingDisabled,
  tool,
} from '@openai/agents';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents/testing';
import { z } from 'zod';
import { Toolcoach, ToolEvent } from '../src';
import { ToolcoachAgents } from '../src/openai-agents';
import { ScriptedServer } from './scripted-server';

// The real OpenAI Agents SDK, its own scripted model (`@openai/agents/testing`) behind a model provider, and the
// client's `report` captured. Tracing is on, as it is by default outside tests (the SDK turns it off when NODE_ENV is
// test), and exports nowhere: importing @openai/agents installs an exporter to api.openai.com, which
// `setTraceProcessors([])` replaces.
beforeAll(() => {
  setTracingDisabled(false);
  setTraceProcessors([]);
});

const clients: Toolcoach[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((tc) => tc.shutdown(50)));
});

function setUp(
  tcOptions: ConstructorParameters<typeof Toolcoach>[0] = {},
  agentsOptions?: ConstructorParameters<typeof ToolcoachAgents>[1],
) {
  const tc = new Toolcoach({
    baseUrl: 'http://127.0.0.1:9',
    apiKey: 'k',
    cacheDir: false,
    flushOnExit: false,
    logger: { warn() {} },
    ...tcOptions,
  });
  clients.push(tc);
  const events: ToolEvent[] = [];
  jest.spyOn(tc, 'report').mockImplementation((event) => void events.push(event));
  return { tc, events, coach: new ToolcoachAgents(tc, agentsOptions) };
}

const executed: number[] = [];
function factorialTool(coach: ToolcoachAgents) {
  return coach.tool({
    name: 'factorial',
    description: 'Returns n! for an integer n.',
    parameters: z.object({ n: z.number().int().min(0) }),
    execute: async ({ n }) => {
      executed.push(n);
      if (n > 20) throw new RangeError(`factorial overflow for n > 20: ${n}! exceeds Number.MAX_SAFE_INTEGER`);
      let product = 1;
      for (let i = 2; i <= n; i++) product *= i;
      return product;
    },
  });
}

const providerOf = (model: ScriptedModel): ModelProvider => ({ getModel: () => model });
const byCall = (events: ToolEvent[]) => Object.fromEntries(events.map((event) => [event.toolCallId, event]));

beforeEach(() => executed.splice(0));

describe('ToolcoachAgents reports every function call once', () => {
  it('a success, a thrown error, schema-invalid input, malformed JSON and an unknown tool returned to the model', async () => {
    const { coach, events } = setUp();
    const model = new ScriptedModel([
      [
        functionCall('factorial', { n: 5 }, { callId: 'c-ok' }),
        functionCall('factorial', { n: 100 }, { callId: 'c-throw' }),
        functionCall('factorial', { numbers: [12, 18] }, { callId: 'c-schema' }),
        functionCall('factorial', '{"n": 3', { callId: 'c-json' }),
        functionCall('factorials', { n: 3 }, { callId: 'c-unknown' }),
      ],
      [assistantMessage('5! = 120')],
    ]);
    const runner = coach.instrument(
      new Runner({
        modelProvider: coach.modelProvider(providerOf(model)),
        groupId: 'thread-7',
        toolNotFoundBehavior: 'return_error_to_model',
      }),
    );
    const result = await runner.run(new Agent({ name: 'math', model: 'gpt-4.1', tools: [factorialTool(coach)] }), 'Compute 5! and 100!');
    expect(result.finalOutput).toBe('5! = 120');

    expect(events).toHaveLength(5);
    const calls = byCall(events);
    expect(calls['c-ok']).toMatchObject({
      tool: 'factorial',
      status: 'success',
      arguments: { n: 5 },
      result: '120',
      durationMs: expect.any(Number),
      framework: 'openai-agents-js',
      agent: 'math',
      model: 'gpt-4.1',
      sessionId: 'thread-7',
      traceId: expect.stringMatching(/^trace_/),
      runId: expect.stringMatching(/^span_/),
    });
    expect(calls['c-throw']).toMatchObject({
      status: 'error',
      arguments: { n: 100 },
      error: {
        type: 'RangeError',
        message: 'factorial overflow for n > 20: 100! exceeds Number.MAX_SAFE_INTEGER',
        stack: expect.any(String),
      },
    });
    // the SDK redacts these arguments from its hooks and spans; the model's response still has them
    expect(calls['c-schema']).toMatchObject({
      status: 'error',
      arguments: { numbers: [12, 18] },
      error: { type: 'InvalidToolInputError' },
    });
    expect(calls['c-json']).toMatchObject({ status: 'error', arguments: '{"n": 3', error: { type: 'InvalidToolInputError' } });
    expect(calls['c-json'].error!.message).toContain('not valid JSON');
    expect(calls['c-unknown']).toMatchObject({
      tool: 'factorials',
      status: 'error',
      arguments: { n: 3 },
      error: { type: 'ModelBehaviorError', message: 'Tool factorials not found in agent math.' },
    });
    expect(new Set(events.map((event) => event.traceId)).size).toBe(1);
    for (const event of events) expect(event).toMatchObject({ agent: 'math', model: 'gpt-4.1', sessionId: 'thread-7' });
    expect(calls['c-unknown'].durationMs).toBeUndefined();
    expect(executed).toEqual([5, 100]);
  });

  it('reports the ModelBehaviorError that ends a run (the SDK default for an unknown tool), not the calls it never ran', async () => {
    const { coach, events } = setUp();
    const model = new ScriptedModel([
      [functionCall('factorial', { n: 5 }, { callId: 'c-ok' }), functionCall('prime_factors', { number: 12 }, { callId: 'c-unknown' })],
    ]);
    const runner = coach.instrument(new Runner({ modelProvider: coach.modelProvider(providerOf(model)) }));
    await expect(runner.run(new Agent({ name: 'math', model: 'gpt-4.1', tools: [factorialTool(coach)] }), 'Factor 12')).rejects.toThrow(
      ModelBehaviorError,
    );
    expect(events).toEqual([
      expect.objectContaining({
        tool: 'prime_factors',
        toolCallId: 'c-unknown',
        status: 'error',
        error: { type: 'ModelBehaviorError', message: 'Tool prime_factors not found in agent math.' },
        arguments: { number: 12 },
        model: 'gpt-4.1',
      }),
    ]);
    expect(executed).toEqual([]);
  });

  it('reports a streamed run as a run', async () => {
    const { coach, events } = setUp();
    const model = new ScriptedModel([
      [functionCall('factorial', { n: 4 }, { callId: 's-ok' }), functionCall('factorials', { n: 4 }, { callId: 's-unknown' })],
      [assistantMessage('24')],
    ]);
    const runner = coach.instrument(
      new Runner({ modelProvider: coach.modelProvider(providerOf(model)), toolNotFoundBehavior: 'return_error_to_model' }),
    );
    const stream = await runner.run(new Agent({ name: 'math', model: 'gpt-4.1', tools: [factorialTool(coach)] }), '4!', { stream: true });
    await stream.completed;
    expect(events.map((event) => [event.toolCallId, event.status, event.error?.type])).toEqual(
      expect.arrayContaining([
        ['s-ok', 'success', undefined],
        ['s-unknown', 'error', 'ModelBehaviorError'],
      ]),
    );
    expect(events).toHaveLength(2);
    expect(model.calls[0].streamed).toBe(true);
  });

  it('reports a call once when both the runner and its agent are instrumented', async () => {
    const { coach, events } = setUp();
    const model = new ScriptedModel([[functionCall('factorial', { n: 3 }, { callId: 'c-1' })], [assistantMessage('6')]]);
    const agent = coach.instrument(new Agent({ name: 'math', model: 'gpt-4.1', tools: [factorialTool(coach)] }));
    const runner = coach.instrument(coach.instrument(new Runner({ modelProvider: coach.modelProvider(providerOf(model)) })));
    await runner.run(agent, '3!');
    expect(events.map((event) => event.toolCallId)).toEqual(['c-1']);
  });

  it('reports from the hooks alone, with the agent model name, when the model is not wrapped', async () => {
    const { coach, events } = setUp();
    const model = new ScriptedModel([[functionCall('factorial', { n: 21 }, { callId: 'c-1' })], [assistantMessage('too big')]]);
    const runner = coach.instrument(new Runner({ modelProvider: providerOf(model) }));
    await runner.run(new Agent({ name: 'math', model: 'gpt-4.1-mini', tools: [factorialTool(coach)] }), '21!');
    expect(events).toEqual([
      expect.objectContaining({
        toolCallId: 'c-1',
        status: 'error',
        model: 'gpt-4.1-mini',
        arguments: { n: 21 },
        error: expect.objectContaining({ type: 'RangeError' }),
      }),
    ]);
  });

  it('tells a failure from an output by the function span for a tool not made with coach.tool', async () => {
    const { coach, events } = setUp();
    const plain = tool({
      name: 'divide',
      description: 'a / b',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => {
        if (b === 0) throw new Error('division by zero');
        return a / b;
      },
    });
    const model = new ScriptedModel([
      [functionCall('divide', { a: 1, b: 0 }, { callId: 'd-zero' }), functionCall('divide', { a: 6, b: 3 }, { callId: 'd-ok' })],
      [assistantMessage('done')],
    ]);
    const runner = coach.instrument(new Runner({ modelProvider: coach.modelProvider(providerOf(model)) }));
    await runner.run(new Agent({ name: 'calc', model: 'gpt-4.1', tools: [plain] }), 'divide');
    const calls = byCall(events);
    expect(calls['d-ok']).toMatchObject({ status: 'success', result: '2' });
    // the SDK's default error function hides what was thrown: the text the model read is what is known
    expect(calls['d-zero']).toMatchObject({
      status: 'error',
      error: { type: 'ToolError', message: 'An error occurred while running the tool. Please try again.' },
    });
  });

  it("takes the session of the client's session view over the trace's group id, and the conversation id without one", async () => {
    const first = setUp();
    const view = first.tc.forSession('conversation-42');
    const viewEvents: ToolEvent[] = [];
    jest.spyOn(view, 'report').mockImplementation((event) => void viewEvents.push(event));
    const coach = new ToolcoachAgents(view);
    const model = new ScriptedModel([[functionCall('factorial', { n: 2 }, { callId: 'v-1' })], [assistantMessage('2')]]);
    await coach
      .instrument(new Runner({ modelProvider: coach.modelProvider(providerOf(model)), groupId: 'group-1' }))
      .run(new Agent({ name: 'math', model: 'gpt-4.1', tools: [factorialTool(coach)] }), '2!');
    expect(viewEvents[0]).toMatchObject({ sessionId: 'conversation-42' });

    const second = setUp();
    const other = new ScriptedModel([[functionCall('factorial', { n: 2 }, { callId: 'v-2' })], [assistantMessage('2')]]);
    await second.coach
      .instrument(new Runner({ modelProvider: second.coach.modelProvider(providerOf(other)) }))
      .run(new Agent({ name: 'math', model: 'gpt-4.1', tools: [factorialTool(second.coach)] }), '2!', { conversationId: 'conv_abc' });
    expect(second.events[0]).toMatchObject({ sessionId: 'conv_abc' });
  });

  it('never throws into the run when reporting fails', async () => {
    const { tc, coach } = setUp();
    jest.spyOn(tc, 'report').mockImplementation(() => {
      throw new Error('broken reporter');
    });
    const model = new ScriptedModel([
      [functionCall('nope', {}, { callId: 'x-1' }), functionCall('factorial', { n: 1 }, { callId: 'x-2' })],
      [assistantMessage('1')],
    ]);
    const runner = coach.instrument(
      new Runner({ modelProvider: coach.modelProvider(providerOf(model)), toolNotFoundBehavior: 'return_error_to_model' }),
    );
    await expect(runner.run(new Agent({ name: 'math', model: 'gpt-4.1', tools: [factorialTool(coach)] }), '1!')).resolves.toBeDefined();
  });
});

describe('ToolcoachAgents with tracing off (OPENAI_AGENTS_DISABLE_TRACING)', () => {
  beforeAll(() => setTracingDisabled(true));
  afterAll(() => setTracingDisabled(false));

  it("still tells a coach.tool tool's thrown error and failed input from an output, and reports no trace id", async () => {
    const { coach, events } = setUp();
    const model = new ScriptedModel([
      [
        functionCall('factorial', { n: 3 }, { callId: 't-ok' }),
        functionCall('factorial', { n: 30 }, { callId: 't-throw' }),
        functionCall('factorial', { number: 3 }, { callId: 't-schema' }),
      ],
      [assistantMessage('6')],
    ]);
    await coach
      .instrument(new Runner({ modelProvider: coach.modelProvider(providerOf(model)), groupId: 'thread-1' }))
      .run(new Agent({ name: 'math', model: 'gpt-4.1', tools: [factorialTool(coach)] }), '3!');
    const calls = byCall(events);
    expect(calls['t-ok']).toMatchObject({ status: 'success', result: '6' });
    expect(calls['t-throw']).toMatchObject({ status: 'error', error: { type: 'RangeError' } });
    expect(calls['t-schema']).toMatchObject({ status: 'error', error: { type: 'InvalidToolInputError' }, arguments: { number: 3 } });
    for (const event of events) {
      expect(event.traceId).toBeUndefined();
      expect(event.runId).toBeUndefined();
    }
    // the group id lives on the trace, which is not kept with tracing off
    expect(events.map((event) => event.sessionId)).toEqual([undefined, undefined, undefined]);
  });
});

describe('ToolcoachAgents live descriptions and guard', () => {
  let server: ScriptedServer;
  beforeEach(async () => {
    server = await ScriptedServer.start();
  });
  afterEach(() => server.close());

  /** Answers like the registry: the served description adds a warning, and the guard section a learned limit. */
  function serveRegistry(guard: Record<string, unknown> | null, version = 3, warning = "Warning: 'n' above 20 fails (overflow).") {
    server.answerOtherwise((request) => {
      if (request.url === '/v1/tools:bulk') {
        return {
          status: 200,
          body: { tools: request.body.tools.map((t: { name: string }) => ({ name: t.name, version, status: 'updated' })) },
        };
      }
      if (request.url === '/v1/tools?format=raw') {
        const registered = server.requests.find((r) => r.url === '/v1/tools:bulk')!.body.tools;
        const tools = registered.map((t: { name: string; description: string; parameters: unknown }) => ({
          name: t.name,
          version,
          baseDescription: t.description,
          description: `${t.description}\n${warning}`,
          warnings: [],
          parameters: t.parameters,
          ...(guard ? { guard } : {}),
        }));
        return { status: 200, body: { format: 'raw', tools } };
      }
      return { status: 404 };
    });
  }

  it("registers the tools' JSON Schemas and gives the model the served description, with its version on the events", async () => {
    serveRegistry(null);
    const { coach, events } = setUp({ baseUrl: server.baseUrl });
    const factorial = factorialTool(coach);
    const invoke = factorial.invoke;
    const tools = await coach.loadTools([factorial], { guard: true });
    expect(tools[0]).toBe(factorial);
    // the SDK finds a tool's input parser by its invoke: the guard is an input guardrail, invoke stays the SDK's
    expect(factorial.invoke).toBe(invoke);
    const registered = server.requests.find((r) => r.url === '/v1/tools:bulk')!.body.tools;
    expect(registered).toEqual([
      {
        name: 'factorial',
        description: 'Returns n! for an integer n.',
        parameters: expect.objectContaining({
          type: 'object',
          properties: { n: expect.objectContaining({ type: 'integer' }) },
          required: ['n'],
        }),
      },
    ]);

    const model = new ScriptedModel([[functionCall('factorial', { n: 3 }, { callId: 'l-1' })], [assistantMessage('6')]]);
    await coach
      .instrument(new Runner({ modelProvider: coach.modelProvider(providerOf(model)) }))
      .run(new Agent({ name: 'math', model: 'gpt-4.1', tools }), '3!');
    const shown = model.calls[0].request.tools.find((t) => t.type === 'function' && t.name === 'factorial') as { description: string };
    expect(shown.description).toBe("Returns n! for an integer n.\nWarning: 'n' above 20 fails (overflow).");
    expect(events[0]).toMatchObject({ toolCallId: 'l-1', status: 'success', descriptionVersion: 3 });
  });

  it('gives the next model call a new version the client refreshed, without loading the tools again', async () => {
    serveRegistry(null);
    const { coach, events } = setUp({ baseUrl: server.baseUrl });
    const tools = await coach.loadTools([factorialTool(coach)]);
    serveRegistry(null, 4, "Warning: pass 'n', never 'num'.");
    expect(await coach.client.refreshDescriptions()).toBe(true);
    const model = new ScriptedModel([[functionCall('factorial', { n: 2 }, { callId: 'f-1' })], [assistantMessage('2')]]);
    await coach
      .instrument(new Runner({ modelProvider: coach.modelProvider(providerOf(model)) }))
      .run(new Agent({ name: 'math', model: 'gpt-4.1', tools }), '2!');
    const shown = model.calls[0].request.tools.find((t) => t.type === 'function' && t.name === 'factorial') as { description: string };
    expect(shown.description).toBe("Returns n! for an integer n.\nWarning: pass 'n', never 'num'.");
    expect(events[0]).toMatchObject({ toolCallId: 'f-1', descriptionVersion: 4 });
  });

  it('refuses a call beyond a learned limit through the input guardrail: the tool never runs, the model reads why', async () => {
    serveRegistry({
      version: 3,
      policy: 'correct',
      schema: 'parameters',
      renames: [],
      limits: [{ path: '/n', bound: 'upper', value: 20, isInclusive: false, reason: 'overflow', evidenceCount: 10 }],
    });
    const { coach, events } = setUp({ baseUrl: server.baseUrl });
    const tools = await coach.loadTools([factorialTool(coach)], { guard: true });
    const model = new ScriptedModel([[functionCall('factorial', { n: 25 }, { callId: 'g-1' })], [assistantMessage('cannot')]]);
    await coach
      .instrument(new Runner({ modelProvider: coach.modelProvider(providerOf(model)) }))
      .run(new Agent({ name: 'math', model: 'gpt-4.1', tools }), '25!');
    const refusal = "factorial was not called: 'n' is 25; above 20 fails (overflow), learned from 10 failed calls";
    expect(executed).toEqual([]);
    const answer = (model.calls[1].request.input as Array<{ type: string; callId?: string; output?: { text: string } }>).find(
      (item) => item.type === 'function_call_result' && item.callId === 'g-1',
    );
    expect(answer?.output).toEqual({ type: 'text', text: refusal });
    expect(events).toEqual([
      expect.objectContaining({
        toolCallId: 'g-1',
        status: 'error',
        prevented: true,
        error: { type: 'GuardRefused', message: refusal },
        arguments: { n: 25 },
      }),
    ]);
  });

  it('corrects a misnamed argument in the model response, before the SDK parses it, and reports the correction', async () => {
    serveRegistry(null);
    const { coach, events } = setUp({ baseUrl: server.baseUrl });
    const tools = await coach.loadTools([factorialTool(coach)], { guard: true });
    const model = new ScriptedModel([[functionCall('factorial', { num: 4 }, { callId: 'r-1' })], [assistantMessage('24')]]);
    await coach
      .instrument(new Runner({ modelProvider: coach.modelProvider(providerOf(model)) }))
      .run(new Agent({ name: 'math', model: 'gpt-4.1', tools }), '4!');
    expect(executed).toEqual([4]);
    expect(events).toEqual([
      expect.objectContaining({
        toolCallId: 'r-1',
        status: 'success',
        result: '24',
        arguments: { n: 4 },
        correction: { original: { num: 4 }, corrected: { n: 4 }, kinds: ['rename'] },
      }),
    ]);
  });

  it.each([
    ['off', [] as number[], { status: 'error', arguments: { num: 4 }, error: expect.objectContaining({ type: 'InvalidToolInputError' }) }],
    [
      'report',
      [] as number[],
      { status: 'error', arguments: { num: 4 }, error: expect.objectContaining({ type: 'InvalidToolInputError' }) },
    ],
    [
      'correct',
      [4],
      { status: 'success', arguments: { n: 4 }, correction: { original: { num: 4 }, corrected: { n: 4 }, kinds: ['rename'] } },
    ],
    [
      'strict',
      [] as number[],
      { status: 'error', prevented: true, error: { type: 'GuardRefused', message: expect.stringContaining('call it as {"n":4}') } },
    ],
  ] as const)('in mode %s, a misnamed argument: the tool ran with %j', async (mode, ran, expected) => {
    serveRegistry(null);
    const { coach, events } = setUp({ baseUrl: server.baseUrl });
    const tools = await coach.loadTools([factorialTool(coach)], { guard: { mode } });
    const model = new ScriptedModel([[functionCall('factorial', { num: 4 }, { callId: 'm-1' })], [assistantMessage('?')]]);
    await coach
      .instrument(new Runner({ modelProvider: coach.modelProvider(providerOf(model)) }))
      .run(new Agent({ name: 'math', model: 'gpt-4.1', tools }), '4!');
    expect(executed).toEqual(ran);
    expect(events).toEqual([expect.objectContaining({ toolCallId: 'm-1', ...expected })]);
  });
});

describe("ToolcoachAgents with the SDK's OpenAIProvider (openai 7, which asks for Node >= 22)", () => {
  let server: ScriptedServer;
  beforeEach(async () => {
    server = await ScriptedServer.start();
  });
  afterEach(() => server.close());

  it('reports the calls of a Responses API run on this Node, through a local stand-in of the API', async () => {
    const usage = {
      input_tokens: 1,
      output_tokens: 1,
      total_tokens: 2,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    };
    const answer = (id: string, output: unknown[]) => ({
      status: 200,
      body: { id, object: 'response', created_at: 0, status: 'completed', model: 'gpt-4.1', output, usage },
    });
    server.answerNext(
      answer('resp_1', [
        { type: 'function_call', id: 'fc_1', call_id: 'call_ok', name: 'factorial', arguments: '{"n":3}', status: 'completed' },
        { type: 'function_call', id: 'fc_2', call_id: 'call_unknown', name: 'factorials', arguments: '{"n":3}', status: 'completed' },
      ]),
      answer('resp_2', [
        {
          type: 'message',
          id: 'msg_1',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: '6', annotations: [] }],
        },
      ]),
    );
    const { coach, events } = setUp();
    const provider = new OpenAIProvider({ apiKey: 'sk-test', baseURL: `${server.baseUrl}/v1` });
    const runner = coach.instrument(
      new Runner({ modelProvider: coach.modelProvider(provider), toolNotFoundBehavior: 'return_error_to_model' }),
    );
    const result = await runner.run(new Agent({ name: 'math', model: 'gpt-4.1', tools: [factorialTool(coach)] }), '3!');
    expect(result.finalOutput).toBe('6');
    expect(server.requests.map((request) => request.url)).toEqual(['/v1/responses', '/v1/responses']);
    expect(events.map((event) => [event.toolCallId, event.status, event.model, event.error?.type])).toEqual([
      ['call_unknown', 'error', 'gpt-4.1', 'ModelBehaviorError'],
      ['call_ok', 'success', 'gpt-4.1', undefined],
    ]);
  });
});
