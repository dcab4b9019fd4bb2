import { ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';

const run = promisify(execFile);

/** Long enough for three servers and `redis-cli --cluster create` on a busy 2-core machine. */
const START_TIMEOUT_MS = 30_000;

/**
 * A Redis Cluster of three masters (no replicas) from the machine's redis-server, on free ports, in a temp directory
 * of its own, removed by `stop()`. Every node keeps an append-only file fsynced on each write, so a node killed with
 * SIGKILL and started again on the same port and directory comes back with every write it acknowledged.
 */
export interface OwnRedisCluster {
  /** `redis+cluster://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3`, the app's REDIS_URL. */
  url: string;
  ports: number[];
  /** The index (into `ports`) of the master that serves `key`'s slot. */
  masterOf(key: string): Promise<number>;
  /** Kills node `index` with SIGKILL (a crash), then starts it again on its port and directory; resolves once the cluster is ok. */
  crashAndRestart(index: number): Promise<void>;
  /** `cluster_state` as node `index` sees it (`ok` or `fail`). */
  stateSeenBy(index: number): Promise<string>;
  stop(): Promise<void>;
}

/** Why a cluster cannot be started on this machine, or null when redis-server and redis-cli (7.0 or newer) are there. */
export function findClusterToolProblem(): string | null {
  for (const tool of ['redis-server', 'redis-cli']) {
    const probe = spawnSync(tool, ['--version'], { encoding: 'utf8' });
    if (probe.error || probe.status !== 0) return `${tool} is not installed (apt-get install redis-server)`;
    const major = Number(/v=(\d+)\./.exec(probe.stdout)?.[1] ?? /(\d+)\.\d+\.\d+/.exec(probe.stdout)?.[1]);
    // cluster-port, which lets the bus use a free port of its own, is 7.0's
    if (!(major >= 7)) return `${tool} is older than 7.0 (${probe.stdout.trim()})`;
  }
  return null;
}

export async function startOwnRedisCluster(): Promise<OwnRedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'tc-redis-cluster-'));
  const nodes: Array<{ port: number; busPort: number; dir: string; child: ChildProcess | null }> = [];
  const ports = await freePorts(6);
  for (let i = 0; i < 3; i++) {
    const nodeDir = join(dir, `node-${i}`);
    mkdirSync(nodeDir);
    nodes.push({ port: ports[i], busPort: ports[i + 3], dir: nodeDir, child: null });
  }
  const startNode = async (node: (typeof nodes)[number]) => {
    node.child = spawn(
      'redis-server',
      [
        ...['--port', String(node.port), '--cluster-port', String(node.busPort), '--bind', '127.0.0.1', '--dir', node.dir],
        ...['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '3000'],
        ...['--appendonly', 'yes', '--appendfsync', 'always', '--save', ''],
      ],
      { stdio: 'ignore' },
    );
    await untilAnswering(node.port, node.child);
  };
  const stop = async () => {
    await Promise.all(nodes.map((node) => stopProcess(node.child)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.all(nodes.map(startNode));
    await run('redis-cli', ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-yes'], {
      timeout: START_TIMEOUT_MS,
    });
    await untilClusterOk(nodes.map((n) => n.port));
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url: `redis+cluster://${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}`,
    ports: nodes.map((n) => n.port),
    async masterOf(key) {
      return withNode(nodes[0].port, async (redis) => {
        const slot = Number(await redis.call('CLUSTER', 'KEYSLOT', key));
        const ranges = (await redis.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number]]>;
        const owner = ranges.find(([first, last]) => slot >= first && slot <= last);
        if (!owner) throw new Error(`no node serves slot ${slot}`);
        return nodes.findIndex((n) => n.port === Number(owner[2][1]));
      });
    },
    async crashAndRestart(index) {
      const node = nodes[index];
      const exited = new Promise((resolve) => node.child?.once('exit', resolve));
      node.child?.kill('SIGKILL');
      await exited;
      await startNode(node);
      await untilClusterOk(nodes.map((n) => n.port));
    },
    stateSeenBy: (index) => withNode(nodes[index].port, async (redis) => clusterState(await redis.call('CLUSTER', 'INFO'))),
    stop,
  };
}

function clusterState(info: unknown): string {
  return /cluster_state:(\w+)/.exec(String(info))?.[1] ?? 'unknown';
}

async function untilClusterOk(ports: number[]) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let states: string[] = [];
  while (Date.now() < deadline) {
    states = await Promise.all(
      ports.map((port) => withNode(port, async (redis) => clusterState(await redis.call('CLUSTER', 'INFO'))).catch(() => 'unreachable')),
    );
    if (states.every((state) => state === 'ok')) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the Redis Cluster is not ok within ${START_TIMEOUT_MS} ms: ${states.join(', ')}`);
}

async function withNode<T>(port: number, use: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}

async function untilAnswering(port: number, child: ChildProcess) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server on port ${port} exited with ${child.exitCode}`);
    // a node loading its append-only file answers LOADING until it is done
    if ((await withNode(port, (redis) => redis.ping()).catch(() => null)) === 'PONG') return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`redis-server on port ${port} did not answer within ${START_TIMEOUT_MS} ms`);
}

async function stopProcess(child: ChildProcess | null) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Ports the OS hands out, all held open at once so none is handed out twice. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const server = createServer();
          server.on('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as { port: number }).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}
