import { exception, ERROR, exportOf } from '../../test/factories/otlp-export.factory';
import { mapOtlpTraces } from './otlp-spans';

// One table per convention of a Python framework (the JavaScript ones, Logfire's OpenAI Agents bridge included, are in
// tool-span-conventions.spec.ts): spans built as each framework builds them (attribute sets quoted in
// tool-span-conventions.ts), in the OTLP/JSON shape an exporter sends, with their parents where the framework puts the
// model, session or agent there.

describe('tool-span conventions of Python frameworks', () => {
  it.each([
    ['v1.0-1.86 (no operation name)', {}],
    ['v1.87-1.107 (with gen_ai.operation.name)', { 'gen_ai.operation.name': 'execute_tool' }],
  ])('reads Pydantic AI %s running tool spans with tool_arguments / tool_response', (_name, extra) => {
    const attributes = {
      ...extra,
      'gen_ai.tool.name': 'get_weather',
      'gen_ai.tool.call.id': 'pyd_1',
      tool_arguments: '{"city":"Lyon"}',
      'logfire.msg': 'running tool: get_weather',
      'gen_ai.agent.name': 'agent',
    };
    const { events } = mapOtlpTraces(
      exportOf([
        { name: 'running tool', id: 'd1', attributes: { ...attributes, tool_response: '{"tempC":12}' } },
        { name: 'running tool', id: 'd2', attributes, status: { code: ERROR }, events: [exception('ValueError', 'no such city')] },
        { name: 'chat gpt-4.1', id: 'd3', attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4.1' } },
      ]),
    );
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({
      tool: 'get_weather',
      status: 'success',
      toolCallId: 'pyd_1',
      arguments: { city: 'Lyon' },
      result: { tempC: 12 },
      agent: 'agent',
    });
    expect(events[1]).toMatchObject({ status: 'error', error: { type: 'ValueError', message: 'no such city' } });
  });

  it('reads Google ADK execute_tool spans: gcp.vertex.agent args and response, placeholders as none, merged spans skipped', () => {
    const tool = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.type': 'FunctionTool' };
    const { events, ignoredSpans } = mapOtlpTraces(
      exportOf(
        [
          {
            name: 'invoke_agent root',
            id: 'e1',
            attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'root', 'gen_ai.conversation.id': 'adk-session' },
          },
          {
            name: 'call_llm',
            id: 'e2',
            parent: 'e1',
            attributes: { 'gen_ai.request.model': 'gemini-2.5-flash', 'gcp.vertex.agent.session_id': 'adk-session' },
          },
          {
            name: 'execute_tool get_weather',
            id: 'e3',
            parent: 'e2',
            attributes: {
              ...tool,
              'gen_ai.tool.name': 'get_weather',
              'gen_ai.tool.call.id': 'adk-1',
              'gcp.vertex.agent.tool_call_args': '{"city": "Rome"}',
              'gcp.vertex.agent.tool_response': '{"result": "sunny"}',
            },
          },
          {
            name: 'execute_tool some_tool',
            id: 'e4',
            parent: 'e2',
            attributes: {
              ...tool,
              'gen_ai.tool.name': 'some_tool',
              'gen_ai.tool.call.id': '<not specified>',
              'gcp.vertex.agent.tool_call_args': '{}',
              'gcp.vertex.agent.tool_response': '{"result": "<not specified>"}',
              'error.type': 'ValueError',
            },
            status: { code: ERROR },
          },
          {
            name: 'execute_tool (merged)',
            id: 'e5',
            parent: 'e2',
            attributes: { ...tool, 'gen_ai.tool.name': '(merged tools)', 'gcp.vertex.agent.tool_call_args': 'N/A' },
          },
        ],
        'gcp.vertex.agent',
      ),
    );
    expect(ignoredSpans).toBe(3);
    expect(events[0]).toMatchObject({
      tool: 'get_weather',
      status: 'success',
      toolCallId: 'adk-1',
      arguments: { city: 'Rome' },
      result: { result: 'sunny' },
      model: 'gemini-2.5-flash',
      sessionId: 'adk-session',
      agent: 'root',
    });
    expect(events[1]).toMatchObject({ tool: 'some_tool', status: 'error', error: { type: 'ValueError', message: 'ValueError' } });
    expect(events[1]).not.toHaveProperty('toolCallId');
  });

  it('reads Strands execute_tool spans, whose arguments and result are span events', () => {
    const { events } = mapOtlpTraces(
      exportOf(
        [
          {
            name: 'invoke_agent Strands Agents',
            id: 'f1',
            attributes: {
              'gen_ai.operation.name': 'invoke_agent',
              'gen_ai.agent.name': 'Strands Agents',
              'gen_ai.request.model': 'us.anthropic.claude-sonnet-4',
            },
          },
          {
            name: 'execute_tool get_weather',
            id: 'f2',
            parent: 'f1',
            attributes: {
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.system': 'strands-agents',
              'gen_ai.tool.name': 'get_weather',
              'gen_ai.tool.call.id': 'tooluse_1',
              'session.id': 'strands-session',
              'gen_ai.tool.status': 'success',
            },
            events: [
              { name: 'gen_ai.tool.message', attributes: { role: 'tool', content: '{"city": "Bern"}', id: 'tooluse_1' } },
              { name: 'gen_ai.choice', attributes: { message: '[{"text": "9 C"}]', id: 'tooluse_1' } },
            ],
          },
          {
            name: 'execute_tool lookup',
            id: 'f3',
            parent: 'f1',
            attributes: {
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.system': 'strands-agents',
              'gen_ai.tool.name': 'lookup',
              'gen_ai.tool.call.id': 'tooluse_2',
            },
            status: { code: ERROR, message: 'Unknown tool: lookup' },
            events: [exception('Exception', 'Unknown tool: lookup')],
          },
        ],
        'strands.telemetry.tracer',
      ),
    );
    expect(events[0]).toMatchObject({
      tool: 'get_weather',
      status: 'success',
      arguments: { city: 'Bern' },
      result: [{ text: '9 C' }],
      sessionId: 'strands-session',
      agent: 'Strands Agents',
      model: 'us.anthropic.claude-sonnet-4',
    });
    expect(events[1]).toMatchObject({ tool: 'lookup', status: 'error', error: { type: 'Exception', message: 'Unknown tool: lookup' } });
  });
});
