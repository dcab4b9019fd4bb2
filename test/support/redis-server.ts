import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';

/**
 * A redis-server of the test's own on a free port, for faults the shared Redis must never see: `freeze()` stops the
 * process (SIGSTOP: connections stay open and nothing answers), `thaw()` resumes it, `stop()` ends it.
 */
export interface OwnRedis {
  url: string;
  port: number;
  freeze(): void;
  thaw(): void;
  stop(): Promise<void>;
}

/** `port`: start again where a stopped one listened, so clients that kept its URL find it back. */
export async function startOwnRedis(extraArgs: string[] = [], port?: number): Promise<OwnRedis> {
  port ??= await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extraArgs], {
    stdio: 'ignore',
  });
  const url = `redis://127.0.0.1:${port}`;
  await waitUntilAnswering(url, child);
  return {
    url,
    port,
    freeze: () => child.kill('SIGSTOP'),
    thaw: () => child.kill('SIGCONT'),
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGCONT');
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function waitUntilAnswering(url: string, child: ChildProcess) {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined);
    try {
      await client.connect();
      if ((await client.ping()) === 'PONG') return;
    } catch {
      // not listening yet
    } finally {
      client.disconnect();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`redis-server at ${url} did not answer within 10 s`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
