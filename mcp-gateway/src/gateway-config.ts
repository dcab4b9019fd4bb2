import { resolveConnection } from '@toolcoach/sdk';

// The gateway's settings from its command line and environment, read once at start. Flags win over variables.

export interface GatewayConfig {
  baseUrl: string;
  apiKey: string | undefined;
  agent: string | undefined;
  /** stdio: the upstream's command and arguments (after `--`). */
  upstreamCommand: string[];
  /** Streamable HTTP: the upstream's URL; the gateway then listens on `listenPort`. */
  upstreamUrl: string | undefined;
  listenPort: number;
  listenHost: string;
  /** How often the registry is asked (with its ETag) whether the served descriptions changed. */
  pollIntervalMs: number;
  /** Answer arguments that fail the tool's schema or a learned limit without calling the upstream. */
  isArgumentCheckOn: boolean;
  /** Where the last served descriptions are kept for starts while toolcoach is down; `false`: nowhere. */
  cacheDir: string | false | undefined;
}

export const USAGE = `usage: toolcoach-mcp [options] -- <upstream command> [args...]     (stdio)
       toolcoach-mcp [options] --upstream-url <url> [--port <n>]      (Streamable HTTP on /mcp)
options: --url <toolcoach url> --api-key <key> --agent <name> --poll-interval-ms <n> --check-arguments --cache-dir <dir|none>
environment: TOOLCOACH_URL, TOOLCOACH_API_KEY, TOOLCOACH_AGENT, TOOLCOACH_POLL_INTERVAL_MS, TOOLCOACH_CHECK_ARGUMENTS=1,
             TOOLCOACH_CACHE_DIR`;

const VALUE_FLAGS = ['--url', '--api-key', '--agent', '--upstream-url', '--port', '--host', '--poll-interval-ms', '--cache-dir'];

/** Reads the settings; throws one Error listing every problem at once. */
export function readGatewayConfig(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): GatewayConfig {
  const separator = argv.indexOf('--');
  const own = separator === -1 ? argv : argv.slice(0, separator);
  const upstreamCommand = separator === -1 ? [] : argv.slice(separator + 1);
  const flags = new Map<string, string>();
  const problems: string[] = [];
  let isArgumentCheckOn = env.TOOLCOACH_CHECK_ARGUMENTS === '1' || env.TOOLCOACH_CHECK_ARGUMENTS === 'true';
  for (let i = 0; i < own.length; i++) {
    const flag = own[i];
    if (flag === '--check-arguments') isArgumentCheckOn = true;
    else if (VALUE_FLAGS.includes(flag) && i + 1 < own.length) flags.set(flag, own[++i]);
    else problems.push(`unknown or incomplete option ${JSON.stringify(flag)}`);
  }
  const upstreamUrl = flags.get('--upstream-url');
  if (upstreamCommand.length === 0 && upstreamUrl === undefined)
    problems.push('name an upstream: -- <command> [args...] or --upstream-url <url>');
  if (upstreamCommand.length > 0 && upstreamUrl !== undefined)
    problems.push('name one upstream: a command after -- or --upstream-url, not both');
  const pollIntervalMs = readInteger(flags.get('--poll-interval-ms') ?? env.TOOLCOACH_POLL_INTERVAL_MS, 30_000, 'poll interval', problems);
  const listenPort = readInteger(flags.get('--port') ?? env.PORT, 0, 'port', problems);
  if (problems.length > 0) throw new Error(`${problems.join('\n')}\n${USAGE}`);

  const connection = resolveConnection({ baseUrl: flags.get('--url'), apiKey: flags.get('--api-key') }, env);
  const cacheDir = flags.get('--cache-dir') ?? env.TOOLCOACH_CACHE_DIR;
  return {
    ...connection,
    agent: flags.get('--agent') ?? (env.TOOLCOACH_AGENT || undefined),
    upstreamCommand,
    upstreamUrl,
    listenPort,
    listenHost: flags.get('--host') ?? '127.0.0.1',
    pollIntervalMs,
    isArgumentCheckOn,
    cacheDir: cacheDir === 'none' ? false : cacheDir || undefined,
  };
}

function readInteger(text: string | undefined, fallback: number, what: string, problems: string[]): number {
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) problems.push(`${what} must be a non-negative integer, got ${JSON.stringify(text)}`);
  return value;
}
