import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { randomUUID } from 'node:crypto';
import { GatewayParts } from './gateway-parts';
import { McpRelay } from './mcp-relay';
import { upstreamEnvironment } from './upstream-environment';

/**
 * stdio mode: the client started this process; the gateway starts the upstream command and relays between the two.
 * The upstream gets the default environment plus `upstreamEnv`, never the rest of the gateway's (which holds the API
 * key; see upstream-environment.ts), and its stderr is the gateway's.
 */
export async function runStdioGateway(
  command: string[],
  parts: GatewayParts,
  upstreamEnv: Readonly<Record<string, string>> = {},
): Promise<McpRelay> {
  const [executable, ...args] = command;
  const upstream = new StdioClientTransport({
    command: executable,
    args,
    env: upstreamEnvironment(upstreamEnv),
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
