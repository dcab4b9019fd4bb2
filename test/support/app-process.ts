import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export const MAIN_JS = join(__dirname, '..', '..', 'dist', 'src', 'main.js');

export interface AppProcess {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** Runs the compiled entry point (`npm run build` output) as a real process, as `npm start` would. */
export function spawnApp(env: Record<string, string>): AppProcess {
  const child = spawn(process.execPath, [MAIN_JS], {
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}
