// Where the SDK finds the server and its key when the code does not say. One vocabulary for every toolcoach client
// (this SDK, the Python SDK, the demo): TOOLCOACH_URL and TOOLCOACH_API_KEY. Names used before stay accepted.

export const DEFAULT_BASE_URL = 'http://localhost:3000';
/** How long start-up calls (`loadTools`, `validate`) wait for the server before falling back, unless told. */
export const DEFAULT_STARTUP_TIMEOUT_MS = 2000;
const MAX_STARTUP_TIMEOUT_MS = 600_000;

/** Each setting's variable first, then the older names still read for it (documented as aliases). */
export const ENV_NAMES = {
  baseUrl: ['TOOLCOACH_URL', 'TOOLCOACH_BASE_URL'],
  apiKey: ['TOOLCOACH_API_KEY'],
  startupTimeoutMs: ['TOOLCOACH_STARTUP_TIMEOUT_MS'],
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

/**
 * The option, else TOOLCOACH_STARTUP_TIMEOUT_MS (a slow network or a busy server: raised without a code change), else
 * 2000 ms. A variable that is not a whole number of milliseconds from 1 to 600,000 is ignored with `problem` set.
 */
export function resolveStartupTimeout(
  option: number | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): { timeoutMs: number; problem?: string } {
  if (option !== undefined) return { timeoutMs: option };
  const text = fromEnv(env, ENV_NAMES.startupTimeoutMs);
  if (text === undefined) return { timeoutMs: DEFAULT_STARTUP_TIMEOUT_MS };
  const value = /^\d{1,7}$/.test(text) ? Number(text) : NaN;
  if (value >= 1 && value <= MAX_STARTUP_TIMEOUT_MS) return { timeoutMs: value };
  return {
    timeoutMs: DEFAULT_STARTUP_TIMEOUT_MS,
    problem: `toolcoach: TOOLCOACH_STARTUP_TIMEOUT_MS=${JSON.stringify(text.slice(0, 40))} is not a whole number of milliseconds from 1 to ${MAX_STARTUP_TIMEOUT_MS}; using ${DEFAULT_STARTUP_TIMEOUT_MS}`,
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
