import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { randomUUID } from 'node:crypto';
import { GatewayParts } from './gateway-parts';
import { McpRelay } from './mcp-relay';

/**
 * stdio mode: the client started this process; the gateway starts the upstream command and relays between the two.
 * The upstream gets the gateway's whole environment (it was configured for the upstream in the first place) and its
 * stderr is the gateway's.
 */
export async function runStdioGateway(command: string[], parts: GatewayParts): Promise<McpRelay> {
  const [executable, ...args] = command;
  const upstream = new StdioClientTransport({
    command: executable,
    args,
    env: { ...getDefaultEnvironment(), ...(process.env as Record<string, string>) },
    stderr: 'inherit',
  });
  // stdio carries exactly one client session for the life of the process.
  const sessionId = randomUUID();
  const relay = new McpRelay(new StdioServerTransport(), upstream, {
    ...parts,
    sessionId: () => sessionId,
    onClose: () => void parts.shutdown().then(() => process.exit(0)),
  });
  await relay.start();
  return relay;
}
