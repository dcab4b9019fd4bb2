#!/usr/bin/env node
import { runCombinedGateway } from './combined-gateway';
import { isAskingForHelp, readGatewayConfig, USAGE } from './gateway-config';
import { createGatewayParts } from './gateway-parts';
import { runHttpGateway } from './http-gateway';
import { runStdioGateway } from './stdio-gateway';

// toolcoach-mcp: stdio (`-- <upstream command>`), Streamable HTTP (`--upstream-url <url>`), or several upstreams
// combined over stdio (`--upstreams <file>`). stdout is the MCP channel in stdio mode, so this process writes nothing
// else there.
async function main(): Promise<void> {
  if (isAskingForHelp(process.argv.slice(2))) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  let config;
  try {
    config = readGatewayConfig(process.argv.slice(2), process.env);
  } catch (error) {
    process.stderr.write(`toolcoach-mcp: ${(error as Error).message}\n`);
    process.exit(2);
  }
  const parts = createGatewayParts(config);
  if (config.upstreams.length > 0) {
    const warn = (line: string) => void process.stderr.write(`${line}\n`);
    const gateway = await runCombinedGateway(config.upstreams, parts, config.isPrefixingNames, warn, config.upstreamEnv);
    const stop = () => void gateway.close().then(() => parts.shutdown().then(() => process.exit(0)));
    process.stdin.once('end', stop);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return;
  }
  if (config.upstreamUrl !== undefined) {
    const gateway = await runHttpGateway(config.upstreamUrl, config.listenPort, config.listenHost, parts);
    process.stderr.write(`toolcoach-mcp: listening on ${gateway.url}, fronting ${config.upstreamUrl}\n`);
    const stop = () => void gateway.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return;
  }
  const relay = await runStdioGateway(config.upstreamCommand, parts, config.upstreamEnv);
  // The client closing our stdin, or asking us to stop, ends the session: deliver what is queued, then exit.
  process.stdin.once('end', () => void relay.close());
  process.once('SIGINT', () => void relay.close());
  process.once('SIGTERM', () => void relay.close());
}

main().catch((error: Error) => {
  process.stderr.write(`toolcoach-mcp: ${error.message}\n`);
  process.exit(1);
});
