import { startTestApp, TestApp } from '../support/test-app';

// POST /v1/events with tool calls in their providers' own shapes (see src/ingest/provider-shapes.ts).
describe('POST /v1/events with provider-native shapes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const storedEvent = (id: string) => t.storedEvent(id);

  it('stores an OpenAI tool call with its result, arguments parsed from the JSON string', async () => {
    const response = await t.request('POST', '/v1/events', {
      body: {
        events: [
          {
            id: 'oa-ok',
            openai: {
              toolCall: { id: 'call_abc', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
              result: { tempC: 21 },
            },
            model: 'gpt-4.1',
            durationMs: 12,
          },
        ],
      },
    });
    expect(response.status).toBe(202);
    expect(await storedEvent('oa-ok')).toMatchObject({
      tool: 'get_weather',
      status: 'success',
      arguments: { city: 'Paris' },
      result: { tempC: 21 },
      toolCallId: 'call_abc',
      model: 'gpt-4.1',
      durationMs: 12,
    });
  });

  it('categorizes OpenAI arguments that are not valid JSON as malformed_arguments, keeping the text', async () => {
    const response = await t.request('POST', '/v1/events', {
      body: {
        id: 'oa-malformed',
        openai: { toolCall: { id: 'call_bad', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"' } } },
      },
    });
    expect(response.status).toBe(202);
    const stored = await storedEvent('oa-malformed');
    expect(stored).toMatchObject({
      status: 'error',
      arguments: '{"city": "Paris"',
      category: 'argument_mismatch',
      subtype: 'malformed_arguments',
    });
    expect(stored.error.type).toBe('SyntaxError');
  });

  it('stores an Anthropic tool_use + tool_result with is_error as a categorized error', async () => {
    const response = await t.request('POST', '/v1/events', {
      body: {
        id: 'an-err',
        anthropic: {
          toolUse: { type: 'tool_use', id: 'toolu_01', name: 'factorial', input: { n: 25 } },
          toolResult: {
            type: 'tool_result',
            tool_use_id: 'toolu_01',
            is_error: true,
            content: [{ type: 'text', text: 'OverflowError: Factorial calculation overflow for n=25' }],
          },
        },
      },
    });
    expect(response.status).toBe(202);
    expect(await storedEvent('an-err')).toMatchObject({
      tool: 'factorial',
      status: 'error',
      arguments: { n: 25 },
      toolCallId: 'toolu_01',
      error: { message: 'OverflowError: Factorial calculation overflow for n=25' },
      category: 'overflow',
    });
  });

  it('stores MCP tools/call results: isError and a JSON-RPC unknown-tool error', async () => {
    const request = (name: string, id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: { location: 'New York' } },
    });
    const response = await t.request('POST', '/v1/events', {
      body: {
        events: [
          {
            id: 'mcp-ok',
            mcp: {
              request: request('get_weather', 1),
              response: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '21C' }] } },
            },
          },
          {
            id: 'mcp-unknown',
            mcp: {
              request: request('get_wether', 3),
              response: { jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'Tool get_wether not found' } },
            },
          },
        ],
      },
    });
    expect(response.status).toBe(202);
    expect(response.body.ids).toEqual(['mcp-ok', 'mcp-unknown']);
    expect(await storedEvent('mcp-ok')).toMatchObject({ status: 'success', result: [{ type: 'text', text: '21C' }], toolCallId: '1' });
    expect(await storedEvent('mcp-unknown')).toMatchObject({
      tool: 'get_wether',
      status: 'error',
      error: { type: 'McpError', message: 'MCP error -32602: Tool get_wether not found' },
      category: 'unknown_tool',
    });
  });

  it('lists a malformed provider shape by index with the path at fault, accepting the rest', async () => {
    const response = await t.request('POST', '/v1/events', {
      body: {
        events: [
          { tool: 'x', status: 'success' },
          { openai: { toolCall: { type: 'function', function: { name: 'f' } } } },
          { anthropic: { toolUse: { id: 'toolu_9', name: 'f' } }, status: 'error' },
          { mcp: { request: { method: 'tools/call', params: { name: 'f' } }, response: { id: 1 } } },
        ],
      },
    });
    expect(response.status).toBe(202);
    expect(response.body.accepted).toBe(1);
    expect(response.body.rejected).toEqual([
      { index: 1, errors: [{ path: '/events/1/openai/toolCall/function/arguments', message: 'is required' }] },
      { index: 2, errors: [{ path: '/events/2/status', message: 'is taken from anthropic; leave it out' }] },
      { index: 3, errors: [{ path: '/events/3/mcp/response', message: 'must hold result or error' }] },
    ]);
  });

  it('answers 400 naming the path when the only event has a malformed provider shape', async () => {
    const response = await t.request('POST', '/v1/events', { body: { openai: { toolCall: {} } } });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual([{ path: '/events/0/openai/toolCall/function', message: 'is required' }]);
  });
});
