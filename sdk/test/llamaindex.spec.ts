import { agent } from '@llamaindex/workflow';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tool } from 'llamaindex';
import { z } from 'zod';
import { Toolcoach, ToolEvent } from '../src';
import { instrumentAgent, loadLlamaIndexTools } from '../src/llamaindex';
import { ScriptedLlamaIndexLLM, ScriptedToolCall } from './scripted-llamaindex-llm';
import { ScriptedServer } from './scripted-server';

// A real LlamaIndex.TS agent (@llamaindex/workflow's agent(), llamaindex's tool()) with a scripted LLM.
function factorialTool() {
  return tool({
    name: 'factorial',
    description: 'Returns n! for an integer n.',
    parameters: z.object({ n: z.number().int().min(0) }),
    execute: ({ n }): { value: number } | { ok: false; error: string } => {
      if (n === undefined) throw new TypeError("Cannot read properties of undefined (reading 'n')");
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

const run = promisify(execFile);
const byCallId = (events: ToolEvent[]) => Object.fromEntries(events.map((event) => [event.toolCallId, event]));

describe('instrumentAgent', () => {
  afterEach(() => jest.restoreAllMocks());

  it('reports each call of a run once: success, thrown, schema-invalid (run anyway), malformed JSON (run anyway), returned failure', async () => {
    const { tc, events } = offlineClient();
    const turns: ScriptedToolCall[][] = [
      [{ id: 'call-ok', name: 'factorial', input: { n: 5 } }],
      [{ id: 'call-thrown', name: 'factorial', input: { n: 100 } }],
      [{ id: 'call-invalid', name: 'factorial', input: { number: 5 } }],
      [{ id: 'call-malformed', name: 'factorial', input: '{"n": 5' }],
      [{ id: 'call-handled', name: 'factorial', input: '{"n": 13}' }],
    ];
    const llm = new ScriptedLlamaIndexLLM(turns);
    const workflow = instrumentAgent(agent({ name: 'math-agent', llm, tools: [factorialTool()] }), tc, {
      isFailure: (result) => (result as { ok?: unknown } | null)?.ok === false,
    });
    const result = await workflow.run('Compute 5!, 100! and 13!');
    expect(result.data.result).toBe('done');

    expect(events.map((event) => event.toolCallId)).toEqual(turns.map(([call]) => call.id));
    for (const event of events) expect(event).toMatchObject({ framework: 'llamaindex', agent: 'math-agent', model: 'scripted-llm' });
    const byCall = byCallId(events);
    expect(byCall['call-ok']).toMatchObject({ tool: 'factorial', status: 'success', arguments: { n: 5 }, result: { value: 120 } });
    expect(byCall['call-ok'].durationMs).toEqual(expect.any(Number));
    // what the tool threw, not LlamaIndex's "Error: Error(RangeError): ..." text
    expect(byCall['call-thrown']).toMatchObject({
      status: 'error',
      arguments: { n: 100 },
      error: { type: 'RangeError', message: 'factorial overflow for n > 20: 100! exceeds Number.MAX_SAFE_INTEGER' },
    });
    // LlamaIndex logs the schema failure and runs the tool anyway: the call is a mistake whatever the tool did next
    expect(byCall['call-invalid']).toMatchObject({
      status: 'error',
      arguments: { number: 5 },
      error: {
        type: 'ToolInputValidationError',
        message: expect.stringMatching(/do not match the schema of factorial: .*; the tool then failed: Cannot read/),
      },
    });
    expect(byCall['call-malformed']).toMatchObject({
      status: 'error',
      arguments: '{"n": 5',
      error: { type: 'MalformedToolArguments', message: expect.stringContaining('are not valid JSON') },
    });
    expect(byCall['call-malformed'].durationMs).toBeUndefined();
    expect(byCall['call-handled']).toMatchObject({
      status: 'error',
      arguments: { n: 13 },
      error: { type: 'ReportedFailure', message: 'unlucky number' },
    });
  });

  it('reports the calls of an LLM shared by workflows instrumented in turn against the tools of the one that runs it', async () => {
    const { tc, events } = offlineClient();
    const llm = new ScriptedLlamaIndexLLM([[], [{ id: 'call-double', name: 'double', input: '{"x": 2}' }]]);
    const double = tool({ name: 'double', description: 'Returns 2x.', parameters: z.object({ x: z.number() }), execute: ({ x }) => 2 * x });
    await instrumentAgent(agent({ name: 'first-agent', llm, tools: [factorialTool()] }), tc).run('nothing to do');
    await instrumentAgent(agent({ name: 'second-agent', llm, tools: [factorialTool(), double] }), tc).run('Double 2');
    // a tool of the second workflow, not reported as unknown to the first
    expect(events).toEqual([
      expect.objectContaining({ tool: 'double', toolCallId: 'call-double', status: 'success', agent: 'second-agent', result: 4 }),
    ]);
  });

  it('reports an unknown tool from the model answer, although LlamaIndex then abandons the run with an unhandled rejection', async () => {
    // in a process of its own: Jest counts any unhandled rejection against the test that was running
    const { stdout } = await run(process.execPath, [join(__dirname, 'llamaindex-unknown-tool.js')], { cwd: __dirname });
    const outcome = JSON.parse(stdout) as { events: ToolEvent[]; rejection: string | null; isSettled: boolean };
    expect(outcome.events).toEqual([
      {
        tool: 'factorial_of',
        status: 'error',
        toolCallId: 'call-unknown',
        occurredAt: expect.any(String),
        arguments: { n: 5 },
        error: { type: 'ToolNotFoundError', message: 'Tools not found: factorial_of' },
        agent: 'math-agent',
        model: 'scripted-llm',
        sessionId: 'conversation-unknown',
        framework: 'llamaindex',
      },
    ]);
    expect(outcome.rejection).toBe('Error: Tools not found: factorial_of');
    // the process ran out of work with the run's promise still pending: it can never settle
    expect(outcome.isSettled).toBe(false);
  });
});

describe('loadLlamaIndexTools', () => {
  let server: ScriptedServer;
  beforeEach(async () => {
    server = await ScriptedServer.start();
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await server.close();
  });

  const serveRegistry = (guard: unknown = null) => server.serveRegistryWithWarning(4, guard);

  const client = () =>
    new Toolcoach({ baseUrl: server.baseUrl, apiKey: 'k', cacheDir: false, flushOnExit: false, refreshIntervalMs: false });

  it('registers the tools with the JSON Schema of their zod parameters, and the next run’s LLM reads the served description', async () => {
    serveRegistry();
    const tc = client();
    const tools = [factorialTool()];
    expect(await loadLlamaIndexTools(tc, tools)).toBe(tools);
    expect(server.requests.find((r) => r.url === '/v1/tools:bulk')!.body.tools).toEqual([
      {
        name: 'factorial',
        description: 'Returns n! for an integer n.',
        parameters: expect.objectContaining({
          type: 'object',
          properties: { n: expect.objectContaining({ type: 'integer', minimum: 0 }) },
        }),
      },
    ]);
    const llm = new ScriptedLlamaIndexLLM([[{ id: 'call-1', name: 'factorial', input: { n: 4 } }]]);
    const reported: ToolEvent[] = [];
    jest.spyOn(tc, 'report').mockImplementation((event) => void reported.push(event));
    await instrumentAgent(agent({ name: 'a', llm, tools }), tc).run('4!');
    expect(llm.descriptionsSeen[0]).toEqual(["Returns n! for an integer n.\nWARNING: 'n' above 20 fails."]);
    expect(reported[0]).toMatchObject({ toolCallId: 'call-1', status: 'success', descriptionVersion: 4 });

    // loading the same tools again registers the description they were given, not the served one
    await loadLlamaIndexTools(tc, tools);
    expect(server.requests.filter((r) => r.url === '/v1/tools:bulk').at(-1)!.body.tools[0].description).toBe(
      'Returns n! for an integer n.',
    );
    await tc.shutdown(50);
  });

  it('with guard, refuses a call the learned limit says fails, before the tool runs, and reports it once as prevented', async () => {
    serveRegistry({
      version: 4,
      policy: 'correct',
      schema: 'parameters',
      renames: [],
      limits: [{ path: '/n', bound: 'upper', value: 20, isInclusive: true, reason: 'overflow', evidenceCount: 10 }],
    });
    const tc = client();
    const execute = jest.fn();
    const tools = [tool({ name: 'factorial', description: 'n!', parameters: z.object({ n: z.number().int() }), execute })];
    await loadLlamaIndexTools(tc, tools, { guard: true });
    const llm = new ScriptedLlamaIndexLLM([[{ id: 'call-big', name: 'factorial', input: { n: 25 } }]]);
    const reported: ToolEvent[] = [];
    jest.spyOn(tc, 'report').mockImplementation((event) => void reported.push(event));
    await instrumentAgent(agent({ name: 'a', llm, tools }), tc).run('25!');
    expect(execute).not.toHaveBeenCalled();
    expect(reported).toEqual([
      expect.objectContaining({
        toolCallId: 'call-big',
        status: 'error',
        prevented: true,
        error: expect.objectContaining({ type: 'GuardRefused' }),
      }),
    ]);
    await tc.shutdown(50);
  });
});
