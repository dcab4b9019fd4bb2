import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { GatewayParts } from './gateway-parts';
import { McpRelay } from './mcp-relay';

const MCP_PATH = '/mcp';
// JSON-RPC bodies of MCP are small; a client that sends more is refused rather than buffered.
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface HttpGateway {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/**
 * Streamable HTTP mode: the gateway listens on /mcp and fronts one upstream URL. Each client session gets its own
 * upstream session, relayed message by message; the session id the client gets is the gateway's own.
 */
export async function runHttpGateway(upstreamUrl: string, port: number, host: string, parts: GatewayParts): Promise<HttpGateway> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  const openSession = async (): Promise<StreamableHTTPServerTransport> => {
    const downstream = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void sessions.set(id, downstream),
    });
    const relay = new McpRelay(downstream, new StreamableHTTPClientTransport(new URL(upstreamUrl)), {
      ...parts,
      sessionId: () => downstream.sessionId,
      onClose: () => {
        if (downstream.sessionId) sessions.delete(downstream.sessionId);
      },
    });
    await relay.start();
    return downstream;
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (new URL(request.url ?? '/', 'http://gateway').pathname !== MCP_PATH) {
      response.writeHead(404).end();
      return;
    }
    const body = request.method === 'POST' ? await readJson(request) : undefined;
    const sessionId = request.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport && sessionId === undefined && isInitializeRequest(body)) transport = await openSession();
    if (!transport) {
      response.writeHead(sessionId === undefined ? 400 : 404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'unknown or missing MCP session' } }));
      return;
    }
    await transport.handleRequest(request, response, body);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: Error) => {
      if (!response.headersSent) response.writeHead(error instanceof BodyError ? 400 : 500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: error.message } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const { port: actualPort } = server.address() as AddressInfo;
  return {
    server,
    url: `http://${host}:${actualPort}${MCP_PATH}`,
    async close() {
      await Promise.allSettled([...sessions.values()].map((transport) => transport.close()));
      await new Promise((resolve) => server.close(resolve));
      await parts.shutdown();
    },
  };
}

class BodyError extends Error {}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of request) {
    bytes += (chunk as Buffer).length;
    if (bytes > MAX_BODY_BYTES) throw new BodyError(`body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new BodyError('Parse error: the body is not JSON');
  }
}
