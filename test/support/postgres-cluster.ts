import { execFile, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';

const run = promisify(execFile);

/** initdb, a start, pg_basebackup: each a few seconds on a busy 2-core machine. */
const STEP_TIMEOUT_MS = 60_000;
const POSTGRES_VERSIONS_DIR = '/usr/lib/postgresql';

/**
 * A Postgres primary and a real streaming replica of it (pg_basebackup -R), each its own server on a free port with
 * its data directory and unix socket in one temp directory, removed by `stop()`. Never the machine's shared server.
 */
export interface OwnPostgresCluster {
  /** postgresql:// URLs of `database` on the primary and on the replica. */
  primaryUrl: string;
  replicaUrl: string;
  /** Stops the replica (fast shutdown: its sessions are cut), as a crash or maintenance would. */
  stopReplica(): Promise<void>;
  /** Starts the stopped replica again on its port and directory; resolves once it streams from the primary again. */
  startReplica(): Promise<void>;
  stop(): Promise<void>;
}

interface PostgresTools {
  binDir: string;
  /** Postgres refuses to run as root: as root, every server command runs as this user through runuser. */
  runAs: { user: string; uid: number; gid: number } | null;
}

/** The newest installed server's binaries and who runs them, or why a cluster cannot be started on this machine. */
function findPostgresTools(): PostgresTools | string {
  const versions = existsSync(POSTGRES_VERSIONS_DIR)
    ? readdirSync(POSTGRES_VERSIONS_DIR)
        .filter((version) => existsSync(join(POSTGRES_VERSIONS_DIR, version, 'bin', 'pg_basebackup')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) return `no Postgres server binaries under ${POSTGRES_VERSIONS_DIR} (apt-get install postgresql)`;
  const binDir = join(POSTGRES_VERSIONS_DIR, versions[0], 'bin');
  if (process.getuid?.() !== 0) return { binDir, runAs: null };
  const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  if (!(uid > 0)) return 'running as root, and there is no postgres user to run the servers as (Postgres refuses root)';
  if (spawnSync('runuser', ['--help']).error) return 'running as root, and runuser (util-linux) is missing to run Postgres as postgres';
  return { binDir, runAs: { user: 'postgres', uid, gid } };
}

export function findPostgresClusterProblem(): string | null {
  const tools = findPostgresTools();
  return typeof tools === 'string' ? tools : null;
}

/** One Postgres server of the test's own that the test may crash and start again (no replica). */
export interface OwnPostgresServer {
  url: string;
  /** `pg_ctl stop -m immediate`: every backend killed at once, no checkpoint, as a crash or an OOM kill would. */
  stopImmediately(): Promise<void>;
  /** Starts the stopped server again on its port and directory (crash recovery first); resolves once it accepts connections. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The server commands of a temp directory `dir`, run as the user Postgres must run as. */
function serverCommands(tools: PostgresTools, dir: string) {
  const postgres = (command: string, args: string[]) => {
    const binary = join(tools.binDir, command);
    const [file, argv] = tools.runAs ? ['runuser', ['-u', tools.runAs.user, '--', binary, ...args]] : [binary, args];
    return run(file, argv, { cwd: dir, timeout: STEP_TIMEOUT_MS }).catch((error: Error & { stderr?: string }) => {
      throw new Error(`${command} ${args.join(' ')} failed: ${error.stderr || error.message}`);
    });
  };
  return {
    postgres,
    startServer: (dataDir: string, port: number) =>
      postgres('pg_ctl', ['-D', dataDir, '-l', `${dataDir}.log`, '-w', '-t', '60', '-o', `-p ${port}`, 'start']),
    stopServer: (dataDir: string, mode: 'fast' | 'immediate') => postgres('pg_ctl', ['-D', dataDir, '-m', mode, '-w', 'stop']),
  };
}

/** A temp directory (with a socket directory) Postgres may write to, owned by the user it runs as. */
function makeServerDirectory(tools: PostgresTools): { dir: string; socketDir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tc-pg-cluster-'));
  const socketDir = join(dir, 'sockets');
  mkdirSync(socketDir);
  if (tools.runAs) for (const path of [dir, socketDir]) chownSync(path, tools.runAs.uid, tools.runAs.gid);
  return { dir, socketDir };
}

/** initdb of a primary that only this test's own clients (and a replica of it) may reach. */
async function initPrimary(postgres: ReturnType<typeof serverCommands>['postgres'], dataDir: string, socketDir: string) {
  await postgres('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  // only this test's own client and its replica connect, over the loopback and the temp directory's socket
  writeFileSync(
    join(dataDir, 'pg_hba.conf'),
    ['local all all trust', 'host all all 127.0.0.1/32 trust', 'host replication postgres 127.0.0.1/32 trust', ''].join('\n'),
  );
  appendFileSync(
    join(dataDir, 'postgresql.conf'),
    [
      '',
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${socketDir}'`,
      'wal_level = replica',
      'max_wal_senders = 4',
      'hot_standby = on',
      // a throwaway cluster: durability across a machine crash is not what the test is about
      'fsync = off',
      'shared_buffers = 32MB',
      '',
    ].join('\n'),
  );
}

export async function startOwnPostgresServer(database: string): Promise<OwnPostgresServer> {
  const tools = findPostgresTools();
  if (typeof tools === 'string') throw new Error(tools);
  const { dir, socketDir } = makeServerDirectory(tools);
  const [port] = await freePorts(1);
  const dataDir = join(dir, 'primary');
  const { postgres, startServer, stopServer } = serverCommands(tools, dir);
  const stop = async () => {
    if (existsSync(join(dataDir, 'postmaster.pid'))) await stopServer(dataDir, 'immediate').catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await initPrimary(postgres, dataDir, socketDir);
    await startServer(dataDir, port);
    await withClient(`postgresql://postgres@127.0.0.1:${port}/postgres`, (sql) => sql.query(`CREATE DATABASE "${database}"`));
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/${database}`,
    stopImmediately: async () => {
      await stopServer(dataDir, 'immediate');
    },
    start: async () => {
      await startServer(dataDir, port);
    },
    stop,
  };
}

export async function startOwnPostgresCluster(database: string): Promise<OwnPostgresCluster> {
  const tools = findPostgresTools();
  if (typeof tools === 'string') throw new Error(tools);
  const { dir, socketDir } = makeServerDirectory(tools);
  const [primaryPort, replicaPort] = await freePorts(2);
  const primaryDir = join(dir, 'primary');
  const replicaDir = join(dir, 'replica');
  const { postgres, startServer, stopServer } = serverCommands(tools, dir);
  const url = (port: number, name: string) => `postgresql://postgres@127.0.0.1:${port}/${name}`;

  const stop = async () => {
    for (const dataDir of [replicaDir, primaryDir]) {
      if (existsSync(join(dataDir, 'postmaster.pid'))) await stopServer(dataDir, 'immediate').catch(() => undefined);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await initPrimary(postgres, primaryDir, socketDir);
    await startServer(primaryDir, primaryPort);
    await withClient(url(primaryPort, 'postgres'), (sql) => sql.query(`CREATE DATABASE "${database}"`));
    // -R writes standby.signal and primary_conninfo: the copy starts as a streaming replica of the primary
    await postgres('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      replicaDir,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
    ]);
    await startServer(replicaDir, replicaPort);
    await untilStreaming(url(primaryPort, 'postgres'));
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    primaryUrl: url(primaryPort, database),
    replicaUrl: url(replicaPort, database),
    stopReplica: async () => {
      await stopServer(replicaDir, 'fast');
    },
    startReplica: async () => {
      await startServer(replicaDir, replicaPort);
      await untilStreaming(url(primaryPort, 'postgres'));
    },
    stop,
  };
}

/** Waits until the primary has a WAL sender streaming to a replica. */
async function untilStreaming(primaryUrl: string) {
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const { rows } = await withClient(primaryUrl, (sql) => sql.query("SELECT 1 FROM pg_stat_replication WHERE state = 'streaming'"));
    if (rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no replica streams from ${primaryUrl} within ${STEP_TIMEOUT_MS} ms`);
}

async function withClient<T>(url: string, use: (sql: Client) => Promise<T>): Promise<T> {
  const sql = new Client({ connectionString: url });
  await sql.connect();
  try {
    return await use(sql);
  } finally {
    await sql.end();
  }
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
