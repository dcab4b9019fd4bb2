import { generateText, jsonSchema, registerTelemetryIntegration, stepCountIs, streamText, tool, ToolLoopAgent } from 'ai';
import { z } from 'zod';
import { Toolcoach } from '../src';
import { coachTools, CoachToolsOptions } from '../src/ai';
import { closedPortUrl, ScriptedServer } from './scripted-server';
import { ScriptedStep, scriptedModel } from './scripted-ai-model';

// The real `ai` 6 package, its MockLanguageModelV3 playing a script, against a scripted registry.
let server: ScriptedServer;
const clients: Toolcoach[] = [];

function client(options: ConstructorParameters<typeof Toolcoach>[0] = {}): Toolcoach {
  const tc = new Toolcoach({
    baseUrl: server.baseUrl,
    apiKey: 'tc_test',
    cacheDir: false,
    flushOnExit: false,
    logger: { warn() {} },
    ...options,
  });
  clients.push(tc);
  return tc;
}

const LIMIT_N = { path: '/n', bound: 'upper', value: 20, isInclusive: true, reason: 'factorial overflow above 20', evidenceCount: 9 };

/** Answers like the registry: the served description carries a warning, and a guard section with a learned limit. */
function serveRegistry(warning = 'WARNING: n above 20 fails.') {
  server.answerOtherwise((request) => {
    if (request.url === '/v1/tools:bulk') {
      return {
        status: 200,
        body: { tools: request.body.tools.map((t: { name: string }) => ({ name: t.name, version: 3, status: 'created' })) },
      };
    }
    if (request.url === '/v1/tools?format=raw') {
      const registered = server.requests.filter((r) => r.url === '/v1/tools:bulk').at(-1)!.body.tools;
      return {
        status: 200,
        body: {
          format: 'raw',
          tools: registered.map((t: { name: string; description: string; parameters: unknown }) => ({
            name: t.name,
            version: 3,
            baseDescription: t.description,
            description: t.name === 'factorial' ? `${t.description}\n${warning}` : t.description,
            warnings: [],
            parameters: t.parameters,
            guard: {
              version: 3,
              policy: 'correct',
              schema: 'parameters',
              renames: t.name === 'prime_factorization' ? [{ wrong: 'numbers', intended: 'number', count: 7 }] : [],
              limits: t.name === 'factorial' ? [LIMIT_N] : [],
            },
          })),
        },
      };
    }
    return { status: 202, body: { accepted: 1, rejected: [] } };
  });
}

/** The tools of the tests; `factorialRuns` collects each n factorial's own code ran with. */
function mathTools(factorialRuns: number[] = []) {
  return {
    prime_factorization: tool({
      description: 'Returns the prime factors of one integer.',
      inputSchema: z.object({ number: z.number().int().min(2) }),
      execute: async ({ number }) => factorize(number),
    }),
    factorial: tool({
      description: 'Returns n! for an integer n.',
      inputSchema: z.object({ n: z.number().int().min(0) }),
      execute: async ({ n }) => {
        factorialRuns.push(n);
        if (n > 20) throw new RangeError(`factorial overflow for n > 20: ${n}! exceeds Number.MAX_SAFE_INTEGER`);
        let product = 1;
        for (let i = 2; i <= n; i++) product *= i;
        return product;
      },
    }),
    // a JSON Schema tool that answers its failures as results, and tells the model so (toModelOutput)
    divide: tool({
      description: 'Divides a by b.',
      inputSchema: jsonSchema<{ a: number; b: number }>({
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      }),
      execute: async ({ a, b }): Promise<{ ok: boolean; value?: number; error?: string }> =>
        b === 0 ? { ok: false, error: 'division by zero' } : { ok: true, value: a / b },
      toModelOutput: ({ output }) =>
        output.ok ? { type: 'json', value: output.value ?? null } : { type: 'error-text', value: `divide failed: ${output.error}` },
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

/** One of each: a success, a thrown error, an unknown tool, schema-invalid input, malformed JSON, a handled failure. */
const MIXED_RUN: ScriptedStep[] = [
  [
    { id: 'call-ok', name: 'prime_factorization', input: '{"number":360}' },
    { id: 'call-throws', name: 'factorial', input: '{"n":100}' },
    { id: 'call-unknown', name: 'prime_factors', input: '{"number":12}' },
  ],
  [
    { id: 'call-invalid', name: 'prime_factorization', input: '{"number":"twelve"}' },
    { id: 'call-malformed', name: 'factorial', input: '{"n": 5' },
    { id: 'call-handled', name: 'divide', input: '{"a":1,"b":0}' },
  ],
  'Done.',
];

async function eventsAfter(tc: Toolcoach) {
  expect(await tc.flush(5000)).toEqual({ isComplete: true, queued: 0 });
  return Object.fromEntries(server.events.map((event) => [event.toolCallId, event]));
}

function expectMixedRunReported(byCall: Record<string, Record<string, unknown>>, model = 'scripted-model') {
  expect(server.events).toHaveLength(6);
  const common = { framework: 'ai-sdk', model, traceId: 'call-ok', sessionId: 'call-ok', descriptionVersion: 3 };
  expect(byCall['call-ok']).toMatchObject({
    ...common,
    tool: 'prime_factorization',
    status: 'success',
    arguments: { number: 360 },
    result: [2, 2, 2, 3, 3, 5],
    durationMs: expect.any(Number),
  });
  expect(byCall['call-throws']).toMatchObject({
    ...common,
    tool: 'factorial',
    status: 'error',
    arguments: { n: 100 },
    error: { type: 'RangeError', message: expect.stringContaining('factorial overflow'), stack: expect.any(String) },
    durationMs: expect.any(Number),
  });
  const { descriptionVersion: _unregistered, ...unregistered } = common;
  expect(byCall['call-unknown']).not.toHaveProperty('descriptionVersion');
  expect(byCall['call-unknown']).toMatchObject({
    ...unregistered,
    tool: 'prime_factors',
    status: 'error',
    arguments: { number: 12 },
    error: { type: 'AI_NoSuchToolError', message: expect.stringContaining("unavailable tool 'prime_factors'") },
  });
  expect(byCall['call-invalid']).toMatchObject({
    ...common,
    tool: 'prime_factorization',
    status: 'error',
    arguments: { number: 'twelve' },
    error: { type: 'AI_InvalidToolInputError', message: expect.stringContaining('Invalid input for tool prime_factorization') },
  });
  expect(byCall['call-malformed']).toMatchObject({
    ...common,
    tool: 'factorial',
    status: 'error',
    arguments: '{"n": 5',
    error: { type: 'AI_InvalidToolInputError', message: expect.stringContaining('JSON parsing failed') },
  });
  expect(byCall['call-handled']).toMatchObject({
    ...common,
    tool: 'divide',
    status: 'error',
    arguments: { a: 1, b: 0 },
    result: { ok: false, error: 'division by zero' },
    error: { type: 'ReportedFailure', message: 'divide failed: division by zero' },
  });
  // nothing ran for the calls no tool saw
  for (const id of ['call-unknown', 'call-invalid', 'call-malformed']) {
    expect(byCall[id].durationMs).toBeUndefined();
    expect(byCall[id].error).not.toHaveProperty('stack');
  }
}

beforeEach(async () => {
  server = await ScriptedServer.start();
  serveRegistry();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((tc) => tc.shutdown(50)));
  await server.close();
});

async function coached(options: CoachToolsOptions = {}, factorialRuns: number[] = []) {
  const tc = client();
  return { tc, coach: await coachTools(tc, mathTools(factorialRuns), options) };
}

describe('coachTools (@toolcoach/sdk/ai)', () => {
  it('registers the tools with the JSON Schemas the AI SDK sends the model, and the model gets the served descriptions', async () => {
    const given = mathTools();
    const tc = client();
    const { tools } = await coachTools(tc, given);
    const registered = server.requests.find((r) => r.url === '/v1/tools:bulk')!.body.tools;
    expect(registered).toEqual([
      {
        name: 'prime_factorization',
        description: 'Returns the prime factors of one integer.',
        parameters: expect.objectContaining({
          type: 'object',
          properties: { number: { type: 'integer', minimum: 2, maximum: expect.any(Number) } },
          required: ['number'],
        }),
      },
      {
        name: 'factorial',
        description: 'Returns n! for an integer n.',
        parameters: expect.objectContaining({ properties: { n: expect.objectContaining({ type: 'integer' }) } }),
      },
      {
        name: 'divide',
        description: 'Divides a by b.',
        parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      },
    ]);
    // the tools given are left as they were
    expect(given.factorial.description).toBe('Returns n! for an integer n.');
    const model = scriptedModel(['Nothing to do.']);
    await generateText({ model, tools, prompt: 'hi' });
    const sent = model.doGenerateCalls[0].tools!.map((t) => [t.name, (t as { description?: string }).description]);
    expect(sent).toEqual([
      ['prime_factorization', 'Returns the prime factors of one integer.'],
      ['factorial', 'Returns n! for an integer n.\nWARNING: n above 20 fails.'],
      ['divide', 'Divides a by b.'],
    ]);
  });

  it('keeps the descriptions as given when the server cannot be reached, and the tools run as before', async () => {
    const tc = client({ baseUrl: await closedPortUrl(), startupTimeoutMs: 300 });
    const coach = await coachTools(tc, mathTools(), { guard: true });
    expect(tc.descriptionSource).toBe('given');
    const model = scriptedModel([[{ id: 'c1', name: 'factorial', input: '{"n":25}' }], 'Done.']);
    const result = await generateText({ model, tools: coach.tools, stopWhen: stepCountIs(3), prompt: 'hi' });
    expect(model.doGenerateCalls[0].tools!.map((t) => (t as { description?: string }).description)).toEqual([
      'Returns the prime factors of one integer.',
      'Returns n! for an integer n.',
      'Divides a by b.',
    ]);
    // no learned limit without the server: the tool itself ran and threw
    expect(result.steps[0].content).toContainEqual(expect.objectContaining({ type: 'tool-error', error: expect.any(RangeError) }));
  });

  it('gives the next step of a run the description a refresh brought', async () => {
    const { tc, coach } = await coached();
    serveRegistry('WARNING: n above 18 fails.');
    const model = scriptedModel([[{ id: 'c1', name: 'factorial', input: '{"n":3}' }], 'Done.']);
    await generateText({
      model,
      tools: coach.tools,
      stopWhen: stepCountIs(3),
      prompt: 'hi',
      onStepFinish: async () => void (await tc.refreshDescriptions()),
    });
    const factorialOf = (call: number) => model.doGenerateCalls[call].tools!.find((t) => t.name === 'factorial') as { description: string };
    expect(factorialOf(0).description).toContain('n above 20 fails');
    expect(factorialOf(1).description).toContain('n above 18 fails');
  });

  it('reports every call of a generateText run once: success, thrown, unknown tool, invalid input, malformed JSON, handled failure', async () => {
    const { tc, coach } = await coached();
    await generateText({
      model: scriptedModel(MIXED_RUN),
      tools: coach.tools,
      stopWhen: stepCountIs(5),
      prompt: 'Factor 360, compute 100!, divide 1 by 0.',
      experimental_telemetry: { integrations: [coach.integration] },
    });
    expectMixedRunReported(await eventsAfter(tc));
  });

  it('reports the same calls of a streamText run', async () => {
    const { tc, coach } = await coached();
    const result = streamText({
      model: scriptedModel(MIXED_RUN),
      tools: coach.tools,
      stopWhen: stepCountIs(5),
      prompt: 'Factor 360, compute 100!, divide 1 by 0.',
      experimental_telemetry: { integrations: [coach.integration] },
    });
    await result.consumeStream();
    expectMixedRunReported(await eventsAfter(tc));
  });

  it.each(['generate', 'stream'] as const)('reports the same calls of a ToolLoopAgent (%s)', async (method) => {
    const { tc, coach } = await coached();
    const agent = new ToolLoopAgent({
      model: scriptedModel(MIXED_RUN, 'agent-model'),
      tools: coach.tools,
      experimental_telemetry: { integrations: [coach.integration] },
    });
    if (method === 'generate') await agent.generate({ prompt: 'Factor 360.' });
    else await (await agent.stream({ prompt: 'Factor 360.' })).consumeStream();
    expectMixedRunReported(await eventsAfter(tc), 'agent-model');
  });

  it('reports each call once when several hooks see it (the integration given twice)', async () => {
    const { tc, coach } = await coached();
    await generateText({
      model: scriptedModel(MIXED_RUN),
      tools: coach.tools,
      stopWhen: stepCountIs(5),
      prompt: 'hi',
      experimental_telemetry: { integrations: [coach.integration, coach.integration] },
    });
    expectMixedRunReported(await eventsAfter(tc));
  });

  it('reports each call once with the integration registered globally as well (registerTelemetryIntegration)', async () => {
    const { tc, coach } = await coached();
    registerTelemetryIntegration(coach.integration);
    try {
      await generateText({
        model: scriptedModel(MIXED_RUN),
        tools: coach.tools,
        stopWhen: stepCountIs(5),
        prompt: 'hi',
        experimental_telemetry: { integrations: [coach.integration] },
      });
    } finally {
      const registered = (globalThis as { AI_SDK_TELEMETRY_INTEGRATIONS?: unknown[] }).AI_SDK_TELEMETRY_INTEGRATIONS!;
      registered.splice(registered.indexOf(coach.integration), 1);
    }
    expectMixedRunReported(await eventsAfter(tc));
  });

  it('reports the calls of two runs whose provider numbered their tool calls alike', async () => {
    const { tc, coach } = await coached();
    for (const n of [3, 4]) {
      await generateText({
        model: scriptedModel([[{ id: 'call_0', name: 'factorial', input: `{"n":${n}}` }], 'Done.']),
        tools: coach.tools,
        stopWhen: stepCountIs(3),
        prompt: 'hi',
        experimental_telemetry: { integrations: [coach.integration] },
      });
    }
    await eventsAfter(tc);
    expect(server.events.map((event) => [event.toolCallId, event.result])).toEqual([
      ['call_0', 6],
      ['call_0', 24],
    ]);
  });

  it('takes the session from the client, else from the telemetry metadata, and the agent and model from the options', async () => {
    const root = client({ agent: 'math-agent' });
    const viaView = await coachTools(root.forSession('chat-7'), mathTools());
    const viaMetadata = await coachTools(root, mathTools(), { agent: 'billing-agent', model: 'gpt-4.1' });
    for (const [coach, metadata] of [
      [viaView, {}],
      [viaMetadata, { sessionId: 'chat-9', team: 'core' }],
    ] as const) {
      await generateText({
        model: scriptedModel([[{ id: `c-${Object.keys(metadata).length}`, name: 'factorial', input: '{"n":3}' }], 'Done.']),
        tools: coach.tools,
        stopWhen: stepCountIs(3),
        prompt: 'hi',
        experimental_telemetry: { functionId: 'math', metadata, integrations: [coach.integration] },
      });
    }
    const byCall = await eventsAfter(root);
    expect(byCall['c-0']).toMatchObject({
      sessionId: 'chat-7',
      agent: 'math-agent',
      model: 'scripted-model',
      metadata: { functionId: 'math' },
    });
    expect(byCall['c-2']).toMatchObject({
      sessionId: 'chat-9',
      agent: 'billing-agent',
      model: 'gpt-4.1',
      metadata: { sessionId: 'chat-9', team: 'core', functionId: 'math' },
    });
  });

  it('flags results the isFailure option calls failures', async () => {
    const { tc, coach } = await coached({ isFailure: (result) => Array.isArray(result) && result.length === 1 });
    await generateText({
      model: scriptedModel([[{ id: 'c-prime', name: 'prime_factorization', input: '{"number":7}' }], 'Done.']),
      tools: coach.tools,
      stopWhen: stepCountIs(3),
      prompt: 'hi',
      experimental_telemetry: { integrations: [coach.integration] },
    });
    expect((await eventsAfter(tc))['c-prime']).toMatchObject({ status: 'error', result: [7], error: { type: 'ReportedFailure' } });
  });

  it('without the integration, reports the calls that reach a tool once, from execute, without a model', async () => {
    const { tc, coach } = await coached();
    await generateText({ model: scriptedModel(MIXED_RUN), tools: coach.tools, stopWhen: stepCountIs(5), prompt: 'hi' });
    const byCall = await eventsAfter(tc);
    expect(Object.keys(byCall).sort()).toEqual(['call-handled', 'call-ok', 'call-throws']);
    expect(byCall['call-ok']).toMatchObject({ status: 'success', framework: 'ai-sdk', durationMs: expect.any(Number) });
    expect(byCall['call-ok']).not.toHaveProperty('model');
    expect(byCall['call-throws']).toMatchObject({ status: 'error', error: { type: 'RangeError' } });
  });

  describe('guard', () => {
    const GUARDED_RUN: ScriptedStep[] = [
      [
        { id: 'g-limit', name: 'factorial', input: '{"n":25}' },
        { id: 'g-rename', name: 'prime_factorization', input: '{"numbers":[12]}' },
        { id: 'g-several', name: 'prime_factorization', input: '{"numbers":[12,18]}' },
        { id: 'g-ok', name: 'factorial', input: '{"n":5}' },
      ],
      'Done.',
    ];

    it('refuses a call past a learned limit, corrects a renamed argument by repair, refuses what it cannot correct', async () => {
      const factorialRuns: number[] = [];
      const { tc, coach } = await coached({ guard: true }, factorialRuns);
      const result = await generateText({
        model: scriptedModel(GUARDED_RUN),
        tools: coach.tools,
        stopWhen: stepCountIs(3),
        prompt: 'hi',
        experimental_repairToolCall: coach.repairToolCall,
        experimental_telemetry: { integrations: [coach.integration] },
      });
      const byCall = await eventsAfter(tc);
      expect(byCall['g-limit']).toMatchObject({
        status: 'error',
        arguments: { n: 25 },
        prevented: true,
        error: { type: 'GuardRefused', message: expect.stringContaining('20') },
      });
      expect(byCall['g-rename']).toMatchObject({
        status: 'success',
        arguments: { number: 12 },
        result: [2, 2, 3],
        correction: { original: { numbers: [12] }, corrected: { number: 12 }, kinds: expect.arrayContaining(['rename']) },
      });
      expect(byCall['g-several']).toMatchObject({ status: 'error', prevented: true, error: { type: 'GuardRefused' } });
      expect(byCall['g-ok']).toMatchObject({ status: 'success', result: 120 });
      expect(byCall['g-ok']).not.toHaveProperty('prevented');
      // the refused call never ran its tool, and the model was told why
      expect(factorialRuns).toEqual([5]);
      const toolResults = result.steps[0].content.filter((part) => part.type === 'tool-error');
      expect(toolResults.map((part) => [part.toolCallId, String(part.error)])).toEqual(
        expect.arrayContaining([['g-limit', expect.stringContaining('20')]]),
      );
    });

    it('without the integration, still reports a refusal once, from execute', async () => {
      const { tc, coach } = await coached({ guard: true });
      await generateText({
        model: scriptedModel([[{ id: 'g-limit', name: 'factorial', input: '{"n":25}' }], 'Done.']),
        tools: coach.tools,
        stopWhen: stepCountIs(3),
        prompt: 'hi',
      });
      const events = (await eventsAfter(tc))['g-limit'];
      expect(server.events).toHaveLength(1);
      expect(events).toMatchObject({ status: 'error', prevented: true, error: { type: 'GuardRefused' } });
    });
  });
});
