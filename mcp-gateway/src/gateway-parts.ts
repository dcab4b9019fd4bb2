import { hostname } from 'node:os';
import { Toolcoach } from '@toolcoach/sdk';
import { ArgumentCheck } from './argument-check';
import { GatewayConfig } from './gateway-config';
import { LiveDescriptions } from './live-descriptions';

/** What every client session of one gateway process shares: the reporter, the served descriptions, the check. */
export interface GatewayParts {
  toolcoach: Toolcoach;
  descriptions: LiveDescriptions;
  argumentCheck: ArgumentCheck | undefined;
  /** Stops polling and delivers the queued events (a few seconds at most). */
  shutdown(): Promise<void>;
}

// stdout may be the MCP channel: everything the gateway has to say goes to stderr, one line each.
const stderrLogger = { warn: (message: string) => process.stderr.write(`${message}\n`) };

export function createGatewayParts(config: GatewayConfig): GatewayParts {
  const toolcoach = new Toolcoach({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    agent: config.agent,
    // one side of a canary for every client session of this gateway: by its agent name, else by its host
    ...(config.agent ? {} : { session: `toolcoach-mcp@${hostname()}` }),
    ...(config.cacheDir === undefined ? {} : { cacheDir: config.cacheDir }),
    // LiveDescriptions polls for the gateway, and tells its client sessions when the list changed
    refreshIntervalMs: false,
    logger: stderrLogger,
  });
  const descriptions = new LiveDescriptions(toolcoach, {
    baseUrl: config.baseUrl,
    apiKey: config.apiKey ?? '',
    pollIntervalMs: config.pollIntervalMs,
    isGuarded: config.isArgumentCheckOn,
  });
  return {
    toolcoach,
    descriptions,
    argumentCheck: config.isArgumentCheckOn ? new ArgumentCheck(toolcoach) : undefined,
    async shutdown() {
      descriptions.close();
      await toolcoach.shutdown(3000);
    },
  };
}
