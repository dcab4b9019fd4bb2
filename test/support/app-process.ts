import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { eventually, TestApp } from './test-app';

export const MAIN_JS = join(__dirname, '..', '..', 'dist', 'src', 'main.js');

export interface AppProcess {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/**
 * Runs the compiled entry point (`npm run build` output) as a real process, as `npm start` would; `nodeArgs` go to
 * Node itself (e.g. `--max-old-space-size=64`).
 */
export function spawnApp(env: Record<string, string>, nodeArgs: readonly string[] = []): AppProcess {
  const child = spawn(process.execPath, [...nodeArgs, MAIN_JS], {
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** A port the OS has just handed out as free (it could be taken again before use, but never by a fixed or random pick). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The compiled app as its own process (API and worker) on `t`'s database, queue prefix and project, listening on a
 * free port; resolves once /healthz answers, and fails with what the app printed when it never does.
 */
export async function startAppProcess(
  t: Pick<TestApp, 'db' | 'config'>,
  startupTimeoutMs?: number,
): Promise<{ app: AppProcess; url: string }> {
  return startListeningAppProcess(
    {
      DATABASE_URL: t.db.url,
      REDIS_URL: t.config.redisUrl,
      QUEUE_PREFIX: t.config.queuePrefix,
      ROLES: 'api,worker',
      MIGRATE_ON_START: 'false',
      RATE_LIMIT_REQUESTS: '0',
    },
    startupTimeoutMs,
  );
}

/** The compiled app as its own process with exactly `env` (a role list with api), on a free port, once /healthz answers. */
export async function startListeningAppProcess(
  env: Record<string, string>,
  startupTimeoutMs = 20_000,
): Promise<{ app: AppProcess; url: string }> {
  const port = await freePort();
  const app = spawnApp({ ...env, PORT: String(port), HOST: '127.0.0.1' });
  const url = `http://127.0.0.1:${port}`;
  await eventually(async () => ((await fetch(`${url}/healthz`).catch(() => null))?.ok ? true : undefined), startupTimeoutMs).catch(
    (error) => {
      app.child.kill('SIGKILL');
      throw new Error(`${error.message}; the app printed:\n${app.output().slice(-2000)}`);
    },
  );
  return { app, url };
}
