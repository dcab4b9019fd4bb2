import { exception, ERROR, exportOf } from '../../test/factories/otlp-export.factory';
import { mapOtlpTraces } from './otlp-spans';

// One table per convention: spans built as each framework builds them (attribute sets quoted in
// tool-span-conventions.ts), in the OTLP/JSON shape an exporter sends, with their parents where the framework puts the
// model, session or agent there.

describe('tool-span conventions', () => {
  it('reads the Vercel AI SDK ai.toolCall spans, with model from the ai.generateText parent and session from metadata', () => {
    const base = {
      'operation.name': 'ai.toolCall weather-agent',
      'ai.operationId': 'ai.toolCall',
      'ai.telemetry.functionId': 'weather-agent',
    };
    const { events, ignoredSpans } = mapOtlpTraces(
      exportOf(
        [
          {
            name: 'ai.toolCall',
            id: 'a2',
            parent: 'a1',
            attributes: {
              ...base,
              'ai.telemetry.metadata.sessionId': 's-1',
              'ai.toolCall.name': 'get_weather',
              'ai.toolCall.id': 'call_1',
              'ai.toolCall.args': '{"city":"Paris"}',
              'ai.toolCall.result': '{"tempC":21}',
            },
          },
          {
            name: 'ai.toolCall',
            id: 'a3',
            parent: 'a1',
            attributes: { ...base, 'ai.toolCall.name': 'factorial', 'ai.toolCall.id': 'call_2', 'ai.toolCall.args': '{"n":25}' },
            status: { code: ERROR, message: 'Factorial calculation overflow for n=25' },
            events: [exception('RangeError', 'Factorial calculation overflow for n=25')],
          },
          {
            name: 'ai.generateText',
            id: 'a1',
            attributes: { 'ai.operationId': 'ai.generateText', 'ai.model.id': 'gpt-4.1', 'ai.model.provider': 'openai.chat' },
          },
        ],
        'ai',
      ),
    );
    expect(ignoredSpans).toBe(1);
    expect(events[0]).toMatchObject({
      tool: 'get_weather',
      status: 'success',
      toolCallId: 'call_1',
      arguments: { city: 'Paris' },
      result: { tempC: 21 },
      model: 'gpt-4.1',
      sessionId: 's-1',
      agent: 'weather-agent',
      framework: 'ai',
      durationMs: 12,
    });
    expect(events[1]).toMatchObject({
      tool: 'factorial',
      status: 'error',
      toolCallId: 'call_2',
      arguments: { n: 25 },
      error: { type: 'RangeError', message: 'Factorial calculation overflow for n=25' },
      model: 'gpt-4.1',
    });
    expect(events[1]).not.toHaveProperty('sessionId');
  });

  it('reads the AI SDK model from the doGenerate span before the call when the ai.generateText parent is in a later export', () => {
    const { events } = mapOtlpTraces(
      exportOf([
        { name: 'ai.generateText.doGenerate', id: 'a5', parent: 'a1', attributes: { 'ai.model.id': 'gpt-4.1-mini' }, atMs: [0, 400] },
        {
          name: 'ai.toolCall',
          id: 'a6',
          parent: 'a1',
          attributes: { 'ai.operationId': 'ai.toolCall', 'ai.toolCall.name': 'get_weather', 'ai.toolCall.id': 'call_9' },
          atMs: [401, 420],
        },
      ]),
    );
    expect(events[0]).toMatchObject({ tool: 'get_weather', model: 'gpt-4.1-mini' });
  });

  it('stores a span that is a tool call by two conventions once, read the more specific way', () => {
    // @arizeai/openinference-vercel adds openinference.span.kind TOOL (and input.value) to the AI SDK's ai.toolCall
    const { events } = mapOtlpTraces(
      exportOf([
        {
          name: 'ai.toolCall',
          id: 'b1',
          attributes: {
            'ai.operationId': 'ai.toolCall',
            'openinference.span.kind': 'TOOL',
            'ai.toolCall.name': 'get_weather',
            'ai.toolCall.id': 'call_1',
            'ai.toolCall.args': '{"city":"Oslo"}',
            'input.value': 'ignored',
          },
        },
      ]),
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ tool: 'get_weather', toolCallId: 'call_1', arguments: { city: 'Oslo' } });
  });

  it('reads Mastra spans (@mastra/otel-exporter): unknown error.type, the model of the chat span before the call, a failure returned as the result', () => {
    const tool = { 'gen_ai.operation.name': 'execute_tool', 'mastra.span.type': 'tool_call', 'gen_ai.tool.type': 'tool' };
    const { events, ignoredSpans } = mapOtlpTraces(
      exportOf(
        [
          {
            name: 'invoke_agent weather-agent',
            id: 'c1',
            attributes: {
              'gen_ai.operation.name': 'invoke_agent',
              'mastra.span.type': 'agent_run',
              'gen_ai.agent.name': 'weather-agent',
              'gen_ai.conversation.id': 'thread-1',
            },
          },
          { name: 'agent_step weather-agent', id: 'c7', parent: 'c1', attributes: { 'mastra.span.type': 'model_step' } },
          {
            name: 'chat gpt-4.1',
            id: 'c2',
            parent: 'c7',
            attributes: { 'gen_ai.operation.name': 'chat', 'mastra.span.type': 'model_inference', 'gen_ai.request.model': 'gpt-4.1' },
            // as Mastra ends it: after its step's tools
            atMs: [100, 600],
          },
          // a model call that started after the tools did not ask for them
          { name: 'chat later', id: 'c8', parent: 'c7', attributes: { 'gen_ai.request.model': 'later-model' }, atMs: [550, 700] },
          {
            name: 'execute_tool factorial',
            id: 'c3',
            parent: 'c7',
            attributes: {
              ...tool,
              'gen_ai.tool.name': 'factorial',
              'gen_ai.tool.call.id': 'call_f',
              'gen_ai.tool.call.arguments': '{"n":25}',
              'error.type': 'unknown',
              'error.message': 'Factorial calculation overflow for n=25',
            },
            status: { code: ERROR, message: 'Factorial calculation overflow for n=25' },
            events: [exception('Error', 'Factorial calculation overflow for n=25')],
          },
          {
            name: 'execute_tool getWeather',
            id: 'c4',
            parent: 'c7',
            attributes: {
              ...tool,
              'gen_ai.tool.name': 'getWeather',
              'gen_ai.tool.call.id': 'call_i',
              'gen_ai.tool.call.arguments': '{"city":7}',
              'gen_ai.tool.call.result':
                '{"error":true,"message":"Tool input validation failed for getWeather. Please fix the following errors and try again:\\n- city: Invalid input: expected string, received number"}',
            },
          },
          {
            name: 'client_tool_call getForecast',
            id: 'c5',
            parent: 'c1',
            attributes: { 'gen_ai.operation.name': 'client_tool_call', 'mastra.span.type': 'client_tool_call' },
          },
          // the older exporter: gen_ai.operation.name tool.execute, gen_ai.tool.input/output, gen_ai.tool.success
          {
            name: 'tool.execute lookup',
            id: 'c6',
            parent: 'c1',
            attributes: {
              'gen_ai.operation.name': 'tool.execute',
              'mastra.span.type': 'tool_call',
              'gen_ai.tool.name': 'lookup',
              'gen_ai.tool.input': '{"q":"x"}',
              'gen_ai.tool.success': false,
            },
          },
        ],
        '@mastra/otel-exporter',
      ),
    );
    expect(ignoredSpans).toBe(5);
    expect(events.map((e) => e.tool)).toEqual(['factorial', 'getWeather', 'lookup']);
    expect(events[0]).toMatchObject({
      status: 'error',
      error: { type: 'Error', message: 'Factorial calculation overflow for n=25' },
      model: 'gpt-4.1',
      agent: 'weather-agent',
      sessionId: 'thread-1',
    });
    expect(events[1]).toMatchObject({
      status: 'error',
      arguments: { city: 7 },
      error: { message: expect.stringMatching(/^Tool input validation failed for getWeather/) },
    });
    expect(events[1]).not.toHaveProperty('result');
    expect(events[2]).toMatchObject({ status: 'error', arguments: { q: 'x' }, error: { message: 'Tool span ended with status ERROR' } });
  });

  it('reads OpenAI Agents SDK function spans through the OpenInference processor, and skips handoffs and MCP listings', () => {
    const kind = (k: string) => ({ 'openinference.span.kind': k, 'llm.system': 'openai' });
    const failure =
      'Error running tool (non-fatal): {"tool_name":"factorial","error":"RangeError: Factorial calculation overflow for n=25"}';
    const { events, ignoredSpans, rejected } = mapOtlpTraces(
      exportOf(
        [
          { name: 'Assistant', id: '91', attributes: { ...kind('AGENT'), 'graph.node.id': 'Assistant' } },
          { name: 'response', id: '92', parent: '91', attributes: { ...kind('LLM'), 'llm.model_name': 'gpt-4.1' } },
          {
            name: 'get_weather',
            id: '93',
            parent: '91',
            attributes: {
              ...kind('TOOL'),
              'tool.name': 'get_weather',
              'input.value': '{"city":"Oslo"}',
              'input.mime_type': 'application/json',
              'output.value': '{"tempC":3}',
            },
          },
          {
            name: 'factorial',
            id: '94',
            parent: '91',
            attributes: {
              ...kind('TOOL'),
              'tool.name': 'factorial',
              'input.value': '{"n":25}',
              'output.value': 'An error occurred while running the tool. Please try again.',
            },
            status: { code: ERROR, message: failure },
            events: [exception(undefined, failure)],
          },
          {
            name: 'handoff to Billing',
            id: '95',
            parent: '91',
            attributes: { ...kind('TOOL'), 'input.value': 'Assistant', 'output.value': 'Billing' },
          },
          { name: 'mcp_tools', id: '96', parent: '91', attributes: { ...kind('TOOL'), 'output.value': '["a","b"]' } },
        ],
        '@arizeai/openinference-instrumentation-openai-agents',
      ),
    );
    expect(rejected).toEqual([]);
    expect(ignoredSpans).toBe(4);
    expect(events[0]).toMatchObject({
      tool: 'get_weather',
      status: 'success',
      arguments: { city: 'Oslo' },
      result: { tempC: 3 },
      agent: 'Assistant',
    });
    expect(events[1]).toMatchObject({
      tool: 'factorial',
      status: 'error',
      error: { message: 'RangeError: Factorial calculation overflow for n=25' },
    });
    expect(events[1].error).not.toHaveProperty('type');
  });

  it('reads OpenAI Agents SDK function spans through Logfire (span name Function: {name})', () => {
    const { events } = mapOtlpTraces(
      exportOf(
        [
          {
            name: 'Function: {name}',
            id: '81',
            attributes: {
              name: 'get_weather',
              input: '{"city":"Oslo"}',
              output: '{"tempC":3}',
              'gen_ai.system': 'openai',
              'logfire.msg': 'Function: get_weather',
            },
          },
          {
            name: 'Function: {name}',
            id: '82',
            attributes: {
              name: 'tool',
              input: '{}',
              error: '{"message":"Error running tool (non-fatal)","data":{"tool_name":"tool","error":"Ouch"}}',
            },
            events: [exception('RuntimeError', 'Ouch')],
          },
        ],
        'logfire.openai_agents',
      ),
    );
    expect(events[0]).toMatchObject({ tool: 'get_weather', status: 'success', arguments: { city: 'Oslo' }, result: { tempC: 3 } });
    expect(events[1]).toMatchObject({ tool: 'tool', status: 'error', error: { type: 'RuntimeError', message: 'Ouch' } });
  });

  it('reads OpenInference TOOL spans with agent.name and session.id from ancestors, never tool.parameters as the arguments', () => {
    const { events } = mapOtlpTraces(
      exportOf([
        {
          name: 'agent',
          id: '71',
          attributes: { 'openinference.span.kind': 'AGENT', 'agent.name': 'researcher', 'session.id': 'oi-session' },
        },
        {
          name: 'search',
          id: '72',
          parent: '71',
          attributes: {
            'openinference.span.kind': 'TOOL',
            'tool.name': 'search',
            'tool.parameters': '{"type":"object"}',
            'input.value': '{"q":"otel"}',
            'tool.id': 'oi-1',
          },
        },
      ]),
    );
    expect(events[0]).toMatchObject({
      tool: 'search',
      arguments: { q: 'otel' },
      toolCallId: 'oi-1',
      agent: 'researcher',
      sessionId: 'oi-session',
    });
  });

  it('reads the GenAI execute_tool span of the AI SDK 7 and Pydantic AI v2 and stops at a parent cycle', () => {
    const { events } = mapOtlpTraces(
      exportOf([
        {
          name: 'execute_tool get_weather',
          id: '61',
          parent: '62',
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': 'get_weather',
            'gen_ai.tool.call.id': 'g-1',
            'gen_ai.tool.call.arguments': '{"city":"Nice"}',
            'gen_ai.tool.call.result': '"sunny"',
          },
        },
        { name: 'a', id: '62', parent: '63', attributes: {} },
        { name: 'b', id: '63', parent: '62', attributes: { 'gen_ai.request.model': 'claude' } },
      ]),
    );
    expect(events[0]).toMatchObject({
      tool: 'get_weather',
      toolCallId: 'g-1',
      arguments: { city: 'Nice' },
      result: '"sunny"',
      model: 'claude',
      agent: 'test-service',
    });
  });
});
