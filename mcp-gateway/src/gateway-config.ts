import { resolveConnection } from '@toolcoach/sdk';
import { readFileSync } from 'node:fs';
import { isGatewayOwn, readUpstreamVariables } from './upstream-environment';

// The gateway's settings from its command line and environment, read once at start. Flags win over variables.

export interface GatewayConfig {
  baseUrl: string;
  apiKey: string | undefined;
  agent: string | undefined;
  /** stdio: the upstream's command and arguments (after `--`). */
  upstreamCommand: string[];
  /**
   * stdio upstreams' variables beyond the defaults (`--env`, `TOOLCOACH_UPSTREAM_ENV`): the gateway's own environment,
   * API key included, is not passed on.
   */
  upstreamEnv: Record<string, string>;
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
  /** Several upstreams combined into one tool list (`--upstreams <file>`), in the file's order; empty otherwise. */
  upstreams: UpstreamSpec[];
  /** Combined upstreams only: serve each tool as `<upstream>__<tool>`. */
  isPrefixingNames: boolean;
}

/** One upstream of a combined gateway, as MCP clients' `mcpServers` configuration names it. */
export interface UpstreamSpec {
  name: string;
  /** stdio: the command and its arguments, with extra environment variables. */
  command?: string[];
  env?: Record<string, string>;
  /** Streamable HTTP: the upstream's URL. */
  url?: string;
}

/** Upstreams one gateway combines at most: each is a process or a connection held for the whole session. */
export const MAX_UPSTREAMS = 20;
const UPSTREAM_NAME = /^[A-Za-z0-9-]{1,32}$/;

export const USAGE = `usage: toolcoach-mcp [options] -- <upstream command> [args...]     (stdio)
       toolcoach-mcp [options] --upstream-url <url> [--port <n>] [--host <address>]   (Streamable HTTP on /mcp)
       toolcoach-mcp [options] --upstreams <file.json> [--prefix-names]  (several upstreams combined, stdio)
       toolcoach-mcp --help
options: --url <toolcoach url>        where toolcoach listens (default http://localhost:3000)
         --api-key <key>              the project's API key
         --agent <name>               the agent name reported with each call
         --poll-interval-ms <n>       how often the live descriptions are checked (default 30000; 0: never)
         --check-arguments            check each call's arguments by the guard before the upstream runs it
         --cache-dir <dir|none>       where the last served descriptions are kept (default ~/.cache/toolcoach)
         --env NAME | --env NAME=value   a variable for a command upstream (repeatable)
         --upstream-url <url>         the upstream's Streamable HTTP endpoint; the gateway then serves /mcp on
         --port <n>                   that port (default: one the system picks) and
         --host <address>             that address (default 127.0.0.1)
         --upstreams <file.json>      several upstreams from an MCP client's configuration file (at most ${MAX_UPSTREAMS})
         --prefix-names               with --upstreams: serve each tool as <upstream>__<tool>
         -h, --help                   this text
environment: TOOLCOACH_URL, TOOLCOACH_API_KEY, TOOLCOACH_AGENT, TOOLCOACH_POLL_INTERVAL_MS, TOOLCOACH_CHECK_ARGUMENTS=1,
             TOOLCOACH_CACHE_DIR, TOOLCOACH_UPSTREAMS=<file.json>, TOOLCOACH_PREFIX_NAMES=1, TOOLCOACH_UPSTREAM_ENV=NAME,NAME,
             TOOLCOACH_STARTUP_TIMEOUT_MS (how long registering waits, default 2000), PORT (as --port); a flag wins
             over its variable
upstreams file: {"mcpServers": {"<name>": {"command": "...", "args": [...], "env": {...}} | {"url": "http://..."}, ...}}
upstream environment: a command upstream gets HOME, LOGNAME, PATH, SHELL, TERM and USER, plus the variables named by
  --env / TOOLCOACH_UPSTREAM_ENV (a bare NAME passes the gateway's value) and its "env" in the upstreams file; nothing
  else of the gateway's environment, and never a TOOLCOACH_* variable (refused if named).`;

/** Flags that take a value; with the switches and `--env`, every option the gateway reads (its usage lists each). */
export const VALUE_FLAGS = [
  '--url',
  '--api-key',
  '--agent',
  '--upstream-url',
  '--port',
  '--host',
  '--poll-interval-ms',
  '--cache-dir',
  '--upstreams',
];
export const SWITCHES = ['--check-arguments', '--prefix-names', '--help', '-h'];
const isTrue = (value: string | undefined) => value === '1' || value === 'true';

/** `--help` or `-h` among the gateway's own options (before `--`): print the usage, start nothing. */
export function isAskingForHelp(argv: readonly string[]): boolean {
  const separator = argv.indexOf('--');
  return (separator === -1 ? argv : argv.slice(0, separator)).some((arg) => arg === '--help' || arg === '-h');
}

/** Reads the settings; throws one Error listing every problem at once. */
export function readGatewayConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  readText: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): GatewayConfig {
  const separator = argv.indexOf('--');
  const own = separator === -1 ? argv : argv.slice(0, separator);
  const upstreamCommand = separator === -1 ? [] : argv.slice(separator + 1);
  const flags = new Map<string, string>();
  const envSpecs: string[] = [];
  const problems: string[] = [];
  let isArgumentCheckOn = isTrue(env.TOOLCOACH_CHECK_ARGUMENTS);
  let isPrefixingNames = isTrue(env.TOOLCOACH_PREFIX_NAMES);
  for (let i = 0; i < own.length; i++) {
    const flag = own[i];
    if (flag === '--check-arguments') isArgumentCheckOn = true;
    else if (flag === '--prefix-names') isPrefixingNames = true;
    else if (flag === '--env' && i + 1 < own.length) envSpecs.push(own[++i]);
    else if (VALUE_FLAGS.includes(flag) && i + 1 < own.length) flags.set(flag, own[++i]);
    else problems.push(`unknown or incomplete option ${JSON.stringify(flag)}`);
  }
  const upstreamUrl = flags.get('--upstream-url');
  const upstreamsFile = flags.get('--upstreams') ?? (env.TOOLCOACH_UPSTREAMS || undefined);
  const ways = [upstreamCommand.length > 0, upstreamUrl !== undefined, upstreamsFile !== undefined].filter(Boolean).length;
  if (ways === 0) problems.push('name an upstream: -- <command> [args...], --upstream-url <url> or --upstreams <file.json>');
  if (ways > 1) problems.push('name the upstreams one way: a command after --, --upstream-url or --upstreams');
  const upstreams = upstreamsFile === undefined ? [] : readUpstreamsFile(upstreamsFile, readText, problems);
  const pollIntervalMs = readInteger(flags.get('--poll-interval-ms') ?? env.TOOLCOACH_POLL_INTERVAL_MS, 30_000, 'poll interval', problems);
  const listenPort = readInteger(flags.get('--port') ?? env.PORT, 0, 'port', problems);
  const upstreamEnv = readUpstreamVariables(envSpecs, env, problems);
  if (problems.length > 0) throw new Error(`${problems.join('\n')}\n${USAGE}`);

  const connection = resolveConnection({ baseUrl: flags.get('--url'), apiKey: flags.get('--api-key') }, env);
  const cacheDir = flags.get('--cache-dir') ?? env.TOOLCOACH_CACHE_DIR;
  return {
    ...connection,
    agent: flags.get('--agent') ?? (env.TOOLCOACH_AGENT || undefined),
    upstreamCommand,
    upstreamEnv,
    upstreamUrl,
    listenPort,
    listenHost: flags.get('--host') ?? '127.0.0.1',
    pollIntervalMs,
    isArgumentCheckOn,
    cacheDir: cacheDir === 'none' ? false : cacheDir || undefined,
    upstreams,
    isPrefixingNames,
  };
}

function readUpstreamsFile(path: string, readText: (path: string) => string, problems: string[]): UpstreamSpec[] {
  let json: unknown;
  try {
    json = JSON.parse(readText(path));
  } catch (error) {
    problems.push(`upstreams file ${JSON.stringify(path)}: ${(error as Error).message}`);
    return [];
  }
  const found = parseUpstreams(json);
  problems.push(...found.problems.map((problem) => `upstreams file ${JSON.stringify(path)}: ${problem}`));
  return found.upstreams;
}

/** The `mcpServers` object of an upstreams file: every problem listed, each naming the upstream it is about. */
export function parseUpstreams(json: unknown): { upstreams: UpstreamSpec[]; problems: string[] } {
  const servers = isObject(json) ? json.mcpServers : undefined;
  if (!isObject(servers) || Object.keys(servers).length === 0) {
    return { upstreams: [], problems: ['expected {"mcpServers": {"<name>": {"command": ...} | {"url": ...}}} with at least one upstream'] };
  }
  const entries = Object.entries(servers);
  const problems: string[] = [];
  if (entries.length > MAX_UPSTREAMS) problems.push(`at most ${MAX_UPSTREAMS} upstreams, got ${entries.length}`);
  const upstreams: UpstreamSpec[] = [];
  for (const [name, server] of entries.slice(0, MAX_UPSTREAMS)) {
    const about = `mcpServers.${JSON.stringify(name).slice(0, 40)}`;
    if (!UPSTREAM_NAME.test(name)) {
      problems.push(`${about}: a name is 1 to 32 letters, digits or '-'`);
      continue;
    }
    if (!isObject(server)) {
      problems.push(`${about}: expected an object with "command" or "url"`);
      continue;
    }
    const { command, args = [], env = {}, url } = server;
    const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');
    if ((typeof command === 'string') === (typeof url === 'string')) problems.push(`${about}: give "command" or "url", one of them`);
    else if (typeof url === 'string' && !URL.canParse(url)) problems.push(`${about}: "url" is not a URL`);
    else if (!isStrings(args)) problems.push(`${about}: "args" must be a list of strings`);
    else if (!isObject(env) || !Object.values(env).every((value) => typeof value === 'string'))
      problems.push(`${about}: "env" must map names to strings`);
    else if (Object.keys(env).some(isGatewayOwn))
      problems.push(`${about}: "env" names a TOOLCOACH_* variable; those are the gateway's own and never reach an upstream`);
    else
      upstreams.push(
        typeof url === 'string' ? { name, url } : { name, command: [command as string, ...args], env: env as Record<string, string> },
      );
  }
  return { upstreams, problems };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readInteger(text: string | undefined, fallback: number, what: string, problems: string[]): number {
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) problems.push(`${what} must be a non-negative integer, got ${JSON.stringify(text)}`);
  return value;
}
