import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

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
