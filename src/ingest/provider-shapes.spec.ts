import { mapProviderShape } from './provider-shapes';

const openAiCall = (args: string, id = 'call_abc') => ({ id, type: 'function', function: { name: 'get_weather', arguments: args } });

describe('mapProviderShape', () => {
  it('returns an event without a provider key as it is', () => {
    const event = { tool: 'x', status: 'success' };
    expect(mapProviderShape(event, 0)).toEqual({ event });
    expect(mapProviderShape('nope', 0)).toEqual({ event: 'nope' });
  });

  describe('openai', () => {
    it('parses the arguments string and keeps our other fields', () => {
      const mapped = mapProviderShape(
        { openai: { toolCall: openAiCall('{"city":"Paris"}'), result: { tempC: 21 } }, agent: 'a1', durationMs: 5 },
        0,
      );
      expect(mapped).toEqual({
        event: {
          agent: 'a1',
          durationMs: 5,
          tool: 'get_weather',
          status: 'success',
          toolCallId: 'call_abc',
          arguments: { city: 'Paris' },
          result: { tempC: 21 },
        },
      });
    });

    it('takes an error given as a string or as our error object', () => {
      expect(mapProviderShape({ openai: { toolCall: openAiCall('{}'), error: 'boom' } }, 0)).toMatchObject({
        event: { status: 'error', error: { message: 'boom' } },
      });
      expect(mapProviderShape({ openai: { toolCall: openAiCall('{}'), error: { type: 'TypeError', message: 'bad' } } }, 0)).toMatchObject({
        event: { status: 'error', error: { type: 'TypeError', message: 'bad' } },
      });
    });

    it('keeps arguments that are not JSON as text and makes the parse failure the error', () => {
      const mapped = mapProviderShape({ openai: { toolCall: openAiCall('{"city": Paris}'), result: 'sunny' } }, 0);
      expect(mapped).toEqual({
        event: {
          tool: 'get_weather',
          status: 'error',
          toolCallId: 'call_abc',
          arguments: '{"city": Paris}',
          error: { type: 'SyntaxError', message: expect.stringMatching(/is not valid JSON|in JSON at position/) },
        },
      });
    });

    it('names the path of a malformed tool call', () => {
      const mapped = mapProviderShape({ events: [], openai: { toolCall: { id: 'c', type: 'function', function: { arguments: 1 } } } }, 3);
      expect(mapped).toEqual({
        errors: [
          { path: '/events/3/openai/toolCall/function/name', message: 'is required' },
          { path: '/events/3/openai/toolCall/function/arguments', message: 'must be string,object' },
        ],
      });
    });

    it('refuses our derived fields beside the provider shape', () => {
      expect(mapProviderShape({ openai: { toolCall: openAiCall('{}') }, tool: 'other' }, 0)).toEqual({
        errors: [{ path: '/events/0/tool', message: 'is taken from openai; leave it out' }],
      });
    });

    it('refuses two provider shapes in one event', () => {
      expect(mapProviderShape({ openai: {}, mcp: {} }, 1)).toEqual({
        errors: [{ path: '/events/1/mcp', message: 'cannot be combined with openai' }],
      });
    });
  });

  describe('anthropic', () => {
    const toolUse = { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } };

    it('maps tool_use + tool_result', () => {
      expect(
        mapProviderShape({ anthropic: { toolUse, toolResult: { type: 'tool_result', tool_use_id: 'toolu_01', content: '21C' } } }, 0),
      ).toEqual({
        event: { tool: 'get_weather', status: 'success', toolCallId: 'toolu_01', arguments: { city: 'Paris' }, result: '21C' },
      });
    });

    it('maps is_error with the text blocks of its content as the message', () => {
      const toolResult = {
        type: 'tool_result',
        tool_use_id: 'toolu_01',
        is_error: true,
        content: [{ type: 'text', text: 'Unknown city: Pariss' }],
      };
      expect(mapProviderShape({ anthropic: { toolUse, toolResult } }, 0)).toMatchObject({
        event: { status: 'error', error: { message: 'Unknown city: Pariss' } },
      });
    });

    it('names a tool_use without a name', () => {
      expect(mapProviderShape({ anthropic: { toolUse: { type: 'tool_use', id: 'x', input: {} } } }, 0)).toEqual({
        errors: [{ path: '/events/0/anthropic/toolUse/name', message: 'is required' }],
      });
    });
  });

  describe('mcp', () => {
    const request = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_weather', arguments: { location: 'New York' } } };

    it('maps a tools/call request and its result', () => {
      const response = { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: '21C' }], isError: false } };
      expect(mapProviderShape({ mcp: { request, response } }, 0)).toEqual({
        event: {
          tool: 'get_weather',
          status: 'success',
          toolCallId: '2',
          arguments: { location: 'New York' },
          result: [{ type: 'text', text: '21C' }],
        },
      });
    });

    it('maps isError with its text as the message', () => {
      const response = { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'Invalid departure date' }], isError: true } };
      expect(mapProviderShape({ mcp: { request, response } }, 0)).toMatchObject({
        event: { status: 'error', error: { message: 'Invalid departure date' } },
      });
    });

    it('maps a JSON-RPC error in the MCP SDKs wording', () => {
      const response = { jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'Unknown tool: invalid_tool_name' } };
      expect(mapProviderShape({ mcp: { request: { ...request, params: { name: 'invalid_tool_name' } }, response } }, 0)).toEqual({
        event: {
          tool: 'invalid_tool_name',
          status: 'error',
          toolCallId: '2',
          error: { type: 'McpError', message: 'MCP error -32602: Unknown tool: invalid_tool_name' },
        },
      });
    });

    it('asks for result or error, once, when the response has neither or both', () => {
      expect(mapProviderShape({ mcp: { request, response: { id: 2 } } }, 0)).toEqual({
        errors: [{ path: '/events/0/mcp/response', message: 'must hold result or error' }],
      });
      expect(mapProviderShape({ mcp: { request, response: { result: {}, error: { code: 1, message: 'x' } } } }, 0)).toEqual({
        errors: [{ path: '/events/0/mcp/response', message: 'must hold result or error, not both' }],
      });
    });

    it('refuses a request that is not tools/call', () => {
      expect(mapProviderShape({ mcp: { request: { ...request, method: 'tools/list' } } }, 0)).toEqual({
        errors: [{ path: '/events/0/mcp/request/method', message: 'must be equal to constant' }],
      });
    });
  });
});
