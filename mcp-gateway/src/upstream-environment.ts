import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';

/**
 * The environment a stdio upstream starts with. An upstream is usually third-party code, and the gateway's own
 * environment holds the project's API key: the upstream gets only what every process needs (the MCP SDK's
 * `getDefaultEnvironment()`: HOME, PATH, USER, ...) plus the variables the user named for it, and never a
 * `TOOLCOACH_*` variable, whoever asked for it.
 */
export function upstreamEnvironment(...configured: ReadonlyArray<Readonly<Record<string, string>>>): Record<string, string> {
  const env: Record<string, string> = getDefaultEnvironment();
  for (const variables of configured) {
    for (const [name, value] of Object.entries(variables)) if (!isGatewayOwn(name)) env[name] = value;
  }
  return env;
}

/** The gateway's own settings (its API key first of all) stay with the gateway. */
export const isGatewayOwn = (name: string) => name.toUpperCase().startsWith('TOOLCOACH_');

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/**
 * The variables named by `--env NAME` / `--env NAME=value` (in order) and `TOOLCOACH_UPSTREAM_ENV=NAME,NAME`: a bare name
 * is passed with the gateway's own value (left out when the gateway has none); a problem for each name that is not a
 * variable name or is one of the gateway's own.
 */
export function readUpstreamVariables(
  specs: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  problems: string[],
): Record<string, string> {
  const listed = (env.TOOLCOACH_UPSTREAM_ENV ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const variables: Record<string, string> = {};
  for (const spec of [...listed, ...specs]) {
    const equals = spec.indexOf('=');
    const name = equals === -1 ? spec : spec.slice(0, equals);
    if (!VARIABLE_NAME.test(name)) problems.push(`--env ${JSON.stringify(spec).slice(0, 80)}: not a variable name`);
    else if (isGatewayOwn(name)) problems.push(`--env ${name}: TOOLCOACH_* variables are the gateway's own and never reach an upstream`);
    else if (equals !== -1) variables[name] = spec.slice(equals + 1);
    else if (env[name] !== undefined) variables[name] = env[name];
  }
  return variables;
}
