import { createServer } from 'node:net';
import { AppConfig, redactUrl } from '../config/config';
import { connectClient } from './prisma/pg-connections';
import { createProbeConnection } from './redis/redis-connections';

const CONNECT_TIMEOUT_MS = 3000;
const START_HINT = 'Start it with `docker compose up -d db redis` (or your own service), or set';

/** Checks that Postgres and Redis answer before anything else starts; returns one message per unreachable service. */
export async function findUnreachableServices(config: AppConfig): Promise<string[]> {
  const problems: string[] = [];
  try {
    await ensureDatabase(config.databaseUrl);
  } catch (error) {
    problems.push(describePostgresProblem(config.databaseUrl, error));
  }
  const redis = createProbeConnection(config.redis, CONNECT_TIMEOUT_MS);
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    problems.push(`Redis is unreachable at ${redactUrl(config.redisUrl)} (${describe(error)}). ${START_HINT} REDIS_URL.`);
  } finally {
    redis.disconnect();
  }
  return problems;
}

// SQLSTATE class 28: the server answered and refused the login (wrong password, unknown role, no pg_hba entry)
const POSTGRES_AUTH_ERROR = /^28/;

/** A server that refused the login is up: say so, rather than sending the reader off to start it. */
function describePostgresProblem(databaseUrl: string, error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && POSTGRES_AUTH_ERROR.test(code)) {
    return `Postgres at ${redactUrl(databaseUrl)} refused the login: authentication failed (${(error as Error).message}). Check the user and password in DATABASE_URL.`;
  }
  return `Postgres is unreachable at ${redactUrl(databaseUrl)} (${describe(error)}). ${START_HINT} DATABASE_URL.`;
}

function describe(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describe(error.errors[0]);
  if (error instanceof Error) return (error as NodeJS.ErrnoException).code ?? error.message;
  return String(error);
}

/** Connects once; when the server is up but the database does not exist yet, creates it (first run on a new machine). */
async function ensureDatabase(databaseUrl: string): Promise<void> {
  try {
    await query(databaseUrl, 'SELECT 1');
  } catch (error) {
    if ((error as { code?: string }).code !== '3D000') throw error;
    const url = new URL(databaseUrl);
    const name = decodeURIComponent(url.pathname.slice(1));
    url.pathname = '/postgres';
    await query(url.toString(), `CREATE DATABASE "${name.replaceAll('"', '""')}"`);
  }
}

async function query(connectionString: string, sql: string): Promise<void> {
  const client = await connectClient({ connectionString, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  try {
    await client.query(sql);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The API's port, tried before anything starts: a busy port is one clear line, not a stack trace after the worker
 * already started. Another process can still take the port in between; `listen` reports that case the same way.
 */
export async function describeBusyPort(host: string, port: number): Promise<string | null> {
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => probe.once('error', reject).listen({ port, host, exclusive: true }, resolve));
    return null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') return null;
    return busyPortMessage(port);
  } finally {
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  }
}

export function busyPortMessage(port: number): string {
  return `Port ${port} is already in use (is toolcoach already running?). Stop that process, or set PORT to a free port.`;
}
