// Where the SDK finds the server and its key when the code does not say. One vocabulary for every toolcoach client
// (this SDK, the Python SDK, the demo): TOOLCOACH_URL and TOOLCOACH_API_KEY. Names used before stay accepted.

export const DEFAULT_BASE_URL = 'http://localhost:3000';

/** Each setting's variable first, then the older names still read for it (documented as aliases). */
export const ENV_NAMES = {
  baseUrl: ['TOOLCOACH_URL', 'TOOLCOACH_BASE_URL'],
  apiKey: ['TOOLCOACH_API_KEY'],
} as const;

export interface ConnectionSettings {
  baseUrl: string;
  /** Undefined when neither the options nor the environment give one: every request will then be refused. */
  apiKey: string | undefined;
}

/** Options win; then the environment (empty values count as unset); then the local server's address. */
export function resolveConnection(
  options: { baseUrl?: string; apiKey?: string },
  env: Readonly<Record<string, string | undefined>> = process.env,
): ConnectionSettings {
  return {
    baseUrl: (nonEmpty(options.baseUrl) ?? fromEnv(env, ENV_NAMES.baseUrl) ?? DEFAULT_BASE_URL).replace(/\/+$/, ''),
    apiKey: nonEmpty(options.apiKey) ?? fromEnv(env, ENV_NAMES.apiKey),
  };
}

function fromEnv(env: Readonly<Record<string, string | undefined>>, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = nonEmpty(env[name]);
    if (value !== undefined) return value;
  }
  return undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
