import type { Serialized } from '@langchain/core/load/serializable';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { z } from 'zod';
import { Toolcoach, ToolEvent } from '../src';
import { ToolcoachCallbackHandler } from '../src/langchain';
import { ScriptedChatModel } from './scripted-chat-model';

const serialized: Serialized = { lc: 1, type: 'not_implemented', id: ['langchain', 'tools', 'DynamicStructuredTool'] };

function setUp(options: ConstructorParameters<typeof ToolcoachCallbackHandler>[1] = {}) {
  const tc = new Toolcoach({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', cacheDir: false, flushOnExit: false, logger: { warn() {} } });
  const events: ToolEvent[] = [];
  jest.spyOn(tc, 'report').mockImplementation((event) => void events.push(event));
  return { tc, events, handler: new ToolcoachCallbackHandler(tc, options) };
}

function start(handler: ToolcoachCallbackHandler, runId: string, input = '{"number":12}', metadata: Record<string, unknown> = {}) {
  handler.handleToolStart(
    serialized,
    input,
    runId,
    'parent-1',
    ['agent:math'],
    { ...metadata, langgraph_node: 'tools', versions: {} },
    'prime_factorization',
    `call-${runId}`,
  );
}

describe('ToolcoachCallbackHandler', () => {
  it('turns a tool run into one success event with name, arguments, result, duration, ids and agent', () => {
    const { handler, events } = setUp();
    start(handler, 'run-1', '{"number":12}', { team: 'core' });
    handler.handleToolEnd(new ToolMessage({ content: '[2,2,3]', tool_call_id: 'call-run-1', status: 'success' }), 'run-1');
    expect(events).toEqual([
      {
        tool: 'prime_factorization',
        status: 'success',
        arguments: { number: 12 },
        result: '[2,2,3]',
        durationMs: expect.any(Number),
        occurredAt: expect.any(String),
        framework: 'langchainjs',
        runId: 'run-1',
        traceId: 'parent-1',
        sessionId: 'parent-1',
        toolCallId: 'call-run-1',
        agent: 'math',
        metadata: { team: 'core', tags: ['agent:math'], parentRunId: 'parent-1' },
      },
    ]);
  });

  it('reports a thrown error with its type, message and stack', () => {
    const { handler, events } = setUp();
    start(handler, 'run-1', '{"n":100}');
    handler.handleToolError(new RangeError('n must be <= 20'), 'run-1');
    expect(events[0]).toMatchObject({
      status: 'error',
      error: { type: 'RangeError', message: 'n must be <= 20', stack: expect.any(String) },
    });
  });

  it('counts a ToolMessage with status "error" as a failure, not a success', () => {
    const { handler, events } = setUp();
    start(handler, 'run-1');
    handler.handleToolEnd(new ToolMessage({ content: 'Error: boom', tool_call_id: 'call-run-1', status: 'error' }), 'run-1');
    expect(events[0]).toMatchObject({ status: 'error', error: { type: 'ToolMessageError', message: 'Error: boom' } });
  });

  it('flags envelope results as failures with the isFailure predicate', () => {
    const { handler, events } = setUp({ isFailure: (result) => (result as { success?: boolean }).success === false });
    start(handler, 'run-1');
    handler.handleToolEnd({ success: false, error: 'number too large' }, 'run-1');
    start(handler, 'run-2');
    handler.handleToolEnd({ success: true, value: 6 }, 'run-2');
    expect(events.map((e) => [e.status, e.error?.message])).toEqual([
      ['error', 'number too large'],
      ['success', undefined],
    ]);
  });

  it('keeps arguments that are not JSON as the raw string', () => {
    const { handler, events } = setUp();
    start(handler, 'run-1', 'twelve');
    handler.handleToolEnd('ok', 'run-1');
    expect(events[0].arguments).toBe('twelve');
  });

  it('reports calls to unknown tools and schema failures that LangChain answers without running a tool', () => {
    const { handler, events } = setUp();
    handler.handleLLMEnd(
      {
        generations: [
          [
            {
              text: '',
              message: {
                tool_calls: [
                  { id: 'c1', name: 'prime_factorization', args: { numbers: [12, 18] } },
                  { id: 'c2', name: 'nope', args: {} },
                ],
              },
            } as never,
          ],
        ],
      },
      'llm-1',
    );
    handler.handleChainStart(serialized, {}, 'node-1', undefined, [], { agent: 'math', langgraph_node: 'tools' });
    handler.handleChainEnd(
      {
        messages: [
          new ToolMessage({
            content:
              'Error invoking tool \'prime_factorization\' with kwargs {"numbers":[12,18]} with error: Error: Received tool input did not match expected schema\n\n✖ Invalid input\n    at DynamicStructuredTool.call (/x/index.cjs:1:1)\n Please fix the error and try again.',
            tool_call_id: 'c1',
            name: 'prime_factorization',
            status: 'error',
          }),
          new ToolMessage({
            content: 'Error: nope is not a valid tool, try one of [prime_factorization].',
            tool_call_id: 'c2',
            name: 'nope',
            status: 'error',
          }),
        ],
      },
      'node-1',
    );
    expect(events).toEqual([
      expect.objectContaining({
        tool: 'prime_factorization',
        status: 'error',
        arguments: { numbers: [12, 18] },
        toolCallId: 'c1',
        agent: 'math',
        error: { type: 'ToolInputParsingException', message: expect.not.stringContaining('index.cjs') },
      }),
      expect.objectContaining({
        tool: 'nope',
        status: 'error',
        toolCallId: 'c2',
        error: { type: 'ToolNotFoundError', message: expect.stringContaining('is not a valid tool') },
      }),
    ]);
  });

  it('does not report again a failure the tool callbacks already reported', () => {
    const { handler, events } = setUp();
    start(handler, 'run-1');
    handler.handleToolError(new Error('boom'), 'run-1');
    handler.handleChainEnd(
      { messages: [new ToolMessage({ content: 'Error: boom', tool_call_id: 'call-run-1', status: 'error' })] },
      'node-1',
    );
    expect(events).toHaveLength(1);
  });

  it('reports tool calls whose arguments the model did not give as valid JSON', () => {
    const { handler, events } = setUp();
    handler.handleLLMEnd(
      {
        generations: [
          [
            {
              text: '',
              message: {
                tool_calls: [],
                invalid_tool_calls: [{ id: 'c9', name: 'factorial', args: '{"n": 5', error: 'Unterminated JSON' }],
              },
            } as never,
          ],
        ],
      },
      'llm-1',
    );
    expect(events[0]).toMatchObject({
      tool: 'factorial',
      status: 'error',
      arguments: '{"n": 5',
      error: { type: 'InvalidToolCall', message: 'Unterminated JSON' },
    });
  });

  it('never throws into the agent, whatever it is given', () => {
    const { handler, tc } = setUp();
    (tc.report as jest.Mock).mockImplementation(() => {
      throw new Error('broken');
    });
    start(handler, 'run-1');
    expect(() => handler.handleToolEnd(undefined, 'run-1')).not.toThrow();
    expect(() => handler.handleToolEnd('x', 'unknown-run')).not.toThrow();
    expect(() => handler.handleLLMEnd(null as never, 'x')).not.toThrow();
    expect(() => handler.handleChainEnd(null as never, 'x')).not.toThrow();
  });

  it('carries the description version the tool was loaded with', async () => {
    const tc = new Toolcoach({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', cacheDir: false, flushOnExit: false, logger: { warn() {} } });
    (tc as unknown as { versions: Map<string, number> }).versions.set('prime_factorization', 3);
    const enqueue = jest.spyOn((tc as unknown as { core: { reporter: { enqueue(e: ToolEvent): void } } }).core.reporter, 'enqueue');
    const handler = new ToolcoachCallbackHandler(tc);
    start(handler, 'run-1');
    handler.handleToolEnd('[2,2,3]', 'run-1');
    expect(enqueue.mock.calls[0][0].descriptionVersion).toBe(3);
    await tc.shutdown(10);
  });
});

describe('ToolcoachCallbackHandler in a real LangChain.js agent', () => {
  const factorial = tool(
    ({ n }) => {
      if (n > 20) throw new RangeError(`factorial overflow for n > 20: ${n}`);
      let product = 1;
      for (let i = 2; i <= n; i++) product *= i;
      return product;
    },
    { name: 'factorial', description: 'Returns n!.', schema: z.object({ n: z.number().int().min(0) }) },
  );

  /** One agent run whose model makes every kind of call: fine, thrown, schema failure, unknown tool, invalid JSON. */
  async function runAgent(options: ConstructorParameters<typeof ToolcoachCallbackHandler>[1] = {}) {
    const { handler, events } = setUp(options);
    const model = new ScriptedChatModel('scripted-reader-1', [
      new AIMessage({
        content: '',
        tool_calls: [
          { id: 'ok', name: 'factorial', args: { n: 5 } },
          { id: 'thrown', name: 'factorial', args: { n: 25 } },
          { id: 'schema', name: 'factorial', args: { number: 5 } },
          { id: 'unknown', name: 'factorialize', args: { n: 5 } },
        ],
        invalid_tool_calls: [{ id: 'invalid', name: 'factorial', args: '{"n": 5', error: 'Unterminated JSON', type: 'invalid_tool_call' }],
      }),
      new AIMessage('Done.'),
    ]);
    const agent = createAgent({ model, tools: [factorial] });
    await agent.invoke(
      { messages: [{ role: 'user', content: 'compute 5!' }] },
      { callbacks: [handler], metadata: { team: 'core', agent: 'math' } },
    );
    const byCall = Object.fromEntries(events.map((e) => [e.toolCallId, e]));
    return { handler, events, byCall };
  }

  it('names the model from the chat model run that asked for each call, on calls that ran and calls that never did', async () => {
    const { events, byCall } = await runAgent();
    expect(Object.keys(byCall).sort()).toEqual(['invalid', 'ok', 'schema', 'thrown', 'unknown']);
    expect(events.map((e) => e.model)).toEqual(events.map(() => 'scripted-reader-1'));
    expect(byCall.ok).toMatchObject({ status: 'success', agent: 'math', framework: 'langchainjs' });
    expect(byCall.thrown.error).toMatchObject({ type: 'RangeError' });
    expect(byCall.schema.error).toMatchObject({ type: 'ToolInputParsingException' });
    expect(byCall.unknown.error).toMatchObject({ type: 'ToolNotFoundError' });
    expect(byCall.invalid.error).toEqual({ type: 'InvalidToolCall', message: 'Unterminated JSON' });
  });

  it('an explicit model option wins over the name the chat model gives', async () => {
    const { events } = await runAgent({ model: 'gpt-4.1' });
    expect(new Set(events.map((e) => e.model))).toEqual(new Set(['gpt-4.1']));
  });

  it("keeps the run's metadata, run id, parent run id and trace on every event", async () => {
    const { events } = await runAgent();
    const traces = new Set(events.map((e) => e.traceId));
    expect(traces.size).toBe(1);
    expect([...traces][0]).toEqual(expect.any(String));
    for (const event of events) {
      expect(event.runId).toEqual(expect.any(String));
      expect(event.runId).not.toBe(event.traceId);
      expect(event.metadata).toMatchObject({ team: 'core', parentRunId: expect.any(String) });
      expect(Object.keys(event.metadata!).filter((k) => /^(ls_|langgraph_)/.test(k))).toEqual([]);
    }
    const runIds = new Set(events.map((e) => e.runId));
    expect(runIds.size).toBe(events.length);
  });

  it('gives a duration only to calls that ran a tool; absent, not 0, for those that never did', async () => {
    const { byCall } = await runAgent();
    expect(byCall.ok.durationMs).toEqual(expect.any(Number));
    expect(byCall.thrown.durationMs).toEqual(expect.any(Number));
    for (const id of ['schema', 'unknown', 'invalid']) expect('durationMs' in byCall[id]).toBe(false);
  });

  it("takes the session from LangGraph's thread_id, else the agent run, unless the sessionId option names one", async () => {
    const { events } = await runAgent();
    expect(events.map((e) => e.sessionId)).toEqual(events.map((e) => e.traceId));
    const { handler, events: threaded } = setUp();
    await createAgent({
      model: new ScriptedChatModel('m', [new AIMessage({ content: '', tool_calls: [{ id: 'x', name: 'factorial', args: { n: 2 } }] })]),
      tools: [factorial],
    }).invoke({ messages: [{ role: 'user', content: '2!' }] }, { callbacks: [handler], configurable: { thread_id: 'thread-7' } });
    expect(threaded.map((e) => e.sessionId)).toEqual(['thread-7']);
    const { events: named } = await runAgent({ sessionId: 'chat-42' });
    expect(new Set(named.map((e) => e.sessionId))).toEqual(new Set(['chat-42']));
  });

  it('forgets every run once the agent run ends', async () => {
    const { handler } = await runAgent();
    const state = handler as unknown as {
      runs: Map<string, unknown>;
      openRuns: Map<string, unknown>;
      lastModelOfTrace: Map<string, unknown>;
    };
    expect([state.runs.size, state.openRuns.size, state.lastModelOfTrace.size]).toEqual([0, 0, 0]);
  });

  it('reports a tool run outside any agent with its own run as the trace and no model', async () => {
    const { handler, events } = setUp();
    await factorial.invoke({ id: 'direct', name: 'factorial', args: { n: 3 }, type: 'tool_call' }, { callbacks: [handler] });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ status: 'success', toolCallId: 'direct', traceId: events[0].runId });
    expect('model' in events[0]).toBe(false);
  });
});
