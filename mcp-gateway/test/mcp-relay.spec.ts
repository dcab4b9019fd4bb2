import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { Toolcoach, ToolEvent } from '@toolcoach/sdk';
import { LiveDescriptions } from '../src/live-descriptions';
import { McpRelay } from '../src/mcp-relay';

/** A relay between two in-memory transport pairs: what the client and the upstream send and receive, raw. */
async function startRelay() {
  const [client, downstream] = InMemoryTransport.createLinkedPair();
  const [upstreamSide, server] = InMemoryTransport.createLinkedPair();
  const toolcoach = new Toolcoach({ baseUrl: 'http://127.0.0.1:9', apiKey: 'tc_test', cacheDir: false, logger: { warn: () => undefined } });
  const reported: ToolEvent[] = [];
  jest.spyOn(toolcoach, 'report').mockImplementation((event: ToolEvent) => void reported.push(event));
  const descriptions = new LiveDescriptions(toolcoach, { baseUrl: 'http://127.0.0.1:9', apiKey: 'tc_test', pollIntervalMs: 0 });
  const relay = new McpRelay(downstream, upstreamSide, { descriptions, toolcoach, sessionId: () => 'session-1' });
  const toServer: JSONRPCMessage[] = [];
  const toClient: JSONRPCMessage[] = [];
  server.onmessage = (message) => void toServer.push(message);
  client.onmessage = (message) => void toClient.push(message);
  await server.start();
  await client.start();
  await relay.start();
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { client, server, reported, toServer, toClient, settle, close: () => relay.close() };
}

const callRequest = (id: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'factorial', arguments: { n: 3 }, _meta: { progressToken: id } },
});
const answer = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: '6' }] } });

describe('McpRelay', () => {
  it('reports an answered call once, and passes progress and the answer to the client unchanged', async () => {
    const relay = await startRelay();
    await relay.client.send(callRequest(1));
    await relay.settle();
    expect(relay.toServer).toEqual([callRequest(1)]);
    const progress: JSONRPCMessage = {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 1, progress: 1, total: 2 },
    };
    await relay.server.send(progress);
    await relay.server.send(answer(1));
    await relay.settle();
    expect(relay.toClient).toEqual([progress, answer(1)]);
    expect(relay.reported).toEqual([
      expect.objectContaining({ tool: 'factorial', status: 'success', toolCallId: '1', sessionId: 'session-1' }),
    ]);
    await relay.close();
  });

  it('passes a cancellation to the upstream and never reports the cancelled call, even when a late answer comes', async () => {
    const relay = await startRelay();
    await relay.client.send(callRequest(2));
    const cancelled: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2, reason: 'stopped' } };
    await relay.client.send(cancelled);
    await relay.settle();
    expect(relay.toServer).toEqual([callRequest(2), cancelled]);
    await relay.server.send(answer(2));
    await relay.client.send(callRequest(3));
    await relay.settle();
    await relay.server.send(answer(3));
    await relay.settle();
    expect(relay.toClient).toEqual([answer(2), answer(3)]);
    expect(relay.reported.map((event) => event.toolCallId)).toEqual(['3']);
    await relay.close();
  });
});
