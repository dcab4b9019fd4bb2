import { toCallEvent } from '../src/call-event';
import { readGatewayConfig } from '../src/gateway-config';

const call = { requestId: 7, tool: 'factorial', arguments: { n: 25 }, descriptionVersion: 2, sessionId: 's-1' };

describe('toCallEvent', () => {
  it('reports a result with its structured content, the served version, the session and the request id', () => {
    const event = toCallEvent(call, { result: { content: [{ type: 'text', text: '120' }], structuredContent: { value: 120 } } }, 1.5);
    expect(event).toEqual({
      tool: 'factorial',
      status: 'success',
      framework: 'mcp',
      toolCallId: '7',
      durationMs: 1.5,
      arguments: { n: 25 },
      descriptionVersion: 2,
      sessionId: 's-1',
      result: { value: 120 },
    });
  });

  it('reports an isError result as an error whose message is the text content', () => {
    const event = toCallEvent(call, { result: { content: [{ type: 'text', text: 'factorial overflow for n > 20' }], isError: true } }, 1);
    expect(event).toMatchObject({ status: 'error', error: { message: 'factorial overflow for n > 20' } });
    expect(event.result).toBeUndefined();
  });

  it('reports a call the argument check refused as the SDKs report one: prevented, the refusal its message', () => {
    const text = "factorial was not called: 'n' is 25; above 20 fails (overflow), learned from 10 failed calls";
    const event = toCallEvent(call, { result: { content: [{ type: 'text', text }], isError: true }, isPrevented: true }, 0.1);
    expect(event).toMatchObject({ status: 'error', prevented: true, error: { type: 'GuardRefused', message: text } });
  });

  it('reports a corrected call with what the client sent and the correction', () => {
    const correction = { original: { num: 5 }, corrected: { n: 5 }, kinds: ['rename' as const] };
    const event = toCallEvent({ ...call, arguments: { num: 5 }, correction }, { result: { content: [{ type: 'text', text: '120' }] } }, 1);
    expect(event).toMatchObject({ status: 'success', arguments: { num: 5 }, correction });
    expect(event).not.toHaveProperty('prevented');
  });

  it("reports a JSON-RPC error in the MCP SDK's McpError wording, without a version for a name never served", () => {
    const event = toCallEvent(
      { ...call, tool: 'prime_factorise', descriptionVersion: undefined },
      { error: { code: -32602, message: 'Tool prime_factorise not found' } },
      0.2,
    );
    expect(event).toMatchObject({
      status: 'error',
      error: { type: 'McpError', message: 'MCP error -32602: Tool prime_factorise not found' },
    });
    expect(event).not.toHaveProperty('descriptionVersion');
  });
});

describe('readGatewayConfig', () => {
  it('takes the upstream command after --, flags over the environment', () => {
    const config = readGatewayConfig(['--agent', 'desk', '--', 'npx', '-y', 'server', '--flag'], {
      TOOLCOACH_URL: 'http://tc:3000/',
      TOOLCOACH_API_KEY: 'tc_key',
      TOOLCOACH_AGENT: 'ignored',
    });
    expect(config).toMatchObject({
      baseUrl: 'http://tc:3000',
      apiKey: 'tc_key',
      agent: 'desk',
      upstreamCommand: ['npx', '-y', 'server', '--flag'],
      upstreamUrl: undefined,
      pollIntervalMs: 30_000,
      isArgumentCheckOn: false,
    });
  });

  it('lists every problem at once', () => {
    expect(() => readGatewayConfig(['--poll-interval-ms', 'soon', '--bogus'], {})).toThrow(
      /unknown or incomplete option "--bogus"\nname an upstream.*\npoll interval must be a non-negative integer, got "soon"/s,
    );
  });
});
