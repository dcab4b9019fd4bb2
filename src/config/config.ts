import { ajvFor } from '../infra/validation/ajv-factory';
import { CLUSTER_URL_PATTERN, readRedisSettings, redactRedisUrl, RedisTarget } from './redis-settings';
import { readTrustProxy, TRUST_PROXY_HINT, TrustProxySetting } from './trust-proxy-setting';

/** The only place that reads process.env: every variable is checked at boot and all problems are reported at once. */

export const ROLE_NAMES = ['api', 'worker', 'scheduler'] as const;
export type Role = (typeof ROLE_NAMES)[number];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface AppConfig {
  nodeEnv: string;
  isProduction: boolean;
  databaseUrl: string;
  /**
   * A streaming replica the dashboard's read-only routes query (api role only), or null to read from the primary too.
   * Writes never go there; a read the replica cannot serve is answered by the primary.
   */
  databaseReadUrl: string | null;
  /** REDIS_URL as given, or `redis+cluster://` and the nodes of REDIS_CLUSTER_NODES: what a child process is given again. */
  redisUrl: string;
  redis: RedisTarget;
  port: number;
  host: string;
  roles: ReadonlySet<Role>;
  logLevel: LogLevel;
  devKey: string;
  /** Prefix of every BullMQ key, so several deployments (or test workers) can share one Redis. */
  queuePrefix: string;
  /**
   * The prefix BullMQ's keys carry: QUEUE_PREFIX, and on a Redis Cluster `{QUEUE_PREFIX}`, a hash tag that puts every
   * key of a queue in one slot (its Lua scripts touch many keys at once). Single-node key names stay as they were.
   */
  queueKeyPrefix: string;
  /** Groups of queued batches the worker writes at once (one transaction each). */
  workerConcurrency: number;
  /** Queued batches written in one transaction at most: a group closes at this many, or after workerGroupWaitMs. */
  workerGroupMaxBatches: number;
  /** ... and events in one group at most: a group closes at whichever limit comes first. */
  workerGroupMaxEvents: number;
  /** How long a group waits for more batches after its first one: what a lone batch waits before it is written. */
  workerGroupWaitMs: number;
  /**
   * A queue worker that runs no job and shows no progress this long while jobs wait in its unpaused queue is closed and
   * started again (a BullMQ worker can stay stuck after its Redis node restarts); 0 never does.
   */
  workerStuckAfterMs: number;
  jobAttempts: number;
  migrateOnStart: boolean;
  shutdownTimeoutMs: number;
  /** How long a worker's hold on a job lasts without renewal; a crashed worker's job is retried after about this. */
  workerLockDurationMs: number;
  /** How often a job may stall (its worker died or froze on it) before BullMQ fails it and it is dead-lettered. */
  workerMaxStalledCount: number;
  /** How long a dead letter is kept; fractions of a day are allowed. */
  deadLetterRetentionDays: number;
  /** Dead letters kept per project; past either cap the oldest are dropped and counted. */
  deadLetterMaxPerProject: number;
  /** Tools one project may register (archived ones count: their rows and versions stay). */
  maxToolsPerProject: number;
  deadLetterMaxBytesPerProject: number;
  /** When the nightly analytics run (cron expression, in nightlyTimeZone); it computes the day before. */
  nightlyCron: string;
  nightlyTimeZone: string;
  /** When the scheduler creates events partitions ahead and applies retention (cron expression, UTC). */
  retentionCron: string;
  /** Requests one API key may make per rate-limit window; 0 turns rate limiting off. */
  rateLimitRequests: number;
  rateLimitWindowSeconds: number;
  /** How long a verified API key is trusted from memory; a revocation reaches every replica at once over Redis. */
  authCacheTtlMs: number;
  /** Database lookups per minute, per process, of keys its index of active keys lacks (almost all wrong); 0: no cap. */
  authFailuresPerMinute: number;
  /** Whose X-Forwarded-For to believe for the client address (right-most untrusted hop). */
  trustProxy: TrustProxySetting;
  /** Alert destinations may resolve to loopback, private or link-local addresses (off: refused, against SSRF). */
  alertAllowPrivateDestinations: boolean;
  /** How often the worker evaluates alert rules; each window is evaluated once across all workers. */
  alertEvaluationIntervalMs: number;
  /** Attempts per alert notification, and the first retry's delay (doubled on each retry). */
  alertDeliveryAttempts: number;
  alertDeliveryBackoffMs: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const DEFAULTS: Record<string, string> = {
  NODE_ENV: 'development',
  DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/toolcoach',
  DATABASE_READ_URL: '',
  REDIS_URL: 'redis://127.0.0.1:6379',
  REDIS_CLUSTER_NODES: '',
  PORT: '3000',
  HOST: '0.0.0.0',
  ROLES: 'api,worker,scheduler',
  LOG_LEVEL: 'info',
  TOOLCOACH_DEV_KEY: 'tc_dev_key',
  QUEUE_PREFIX: 'toolcoach',
  WORKER_CONCURRENCY: '4',
  // a job that stalled is written alone on its retry (StalledJobIsolation), so grouping is safe by default
  WORKER_GROUP_MAX_BATCHES: '50',
  WORKER_GROUP_MAX_EVENTS: '5000',
  WORKER_GROUP_WAIT_MS: '10',
  WORKER_STUCK_AFTER_MS: '30000',
  JOB_ATTEMPTS: '8',
  MIGRATE_ON_START: 'true',
  SHUTDOWN_TIMEOUT_MS: '10000',
  WORKER_LOCK_DURATION_MS: '30000',
  WORKER_MAX_STALLED_COUNT: '2',
  DEAD_LETTER_RETENTION_DAYS: '14',
  DEAD_LETTER_MAX_PER_PROJECT: '1000',
  MAX_TOOLS_PER_PROJECT: '1000',
  DEAD_LETTER_MAX_MB_PER_PROJECT: '64',
  NIGHTLY_CRON: '0 2 * * *',
  NIGHTLY_TIME_ZONE: 'UTC',
  RETENTION_CRON: '20 * * * *',
  RATE_LIMIT_REQUESTS: '6000',
  RATE_LIMIT_WINDOW_SECONDS: '60',
  AUTH_CACHE_TTL_MS: '30000',
  AUTH_FAILURES_PER_MINUTE: '30',
  TRUST_PROXY: 'false',
  ALERT_ALLOW_PRIVATE_DESTINATIONS: 'false',
  ALERT_EVALUATION_INTERVAL_MS: '60000',
  ALERT_DELIVERY_ATTEMPTS: '6',
  ALERT_DELIVERY_BACKOFF_MS: '30000',
};

const envSchema = {
  type: 'object',
  properties: {
    NODE_ENV: { type: 'string', minLength: 1 },
    DATABASE_URL: { type: 'string', pattern: '^postgres(ql)?://' },
    DATABASE_READ_URL: { type: 'string', pattern: '^$|^postgres(ql)?://' },
    REDIS_URL: { type: 'string', pattern: `^rediss?://|${CLUSTER_URL_PATTERN}` },
    REDIS_CLUSTER_NODES: { type: 'string', maxLength: 4096, pattern: '^$|^[^,\\s]+(,[^,\\s]+)*$' },
    PORT: { type: 'string', pattern: '^[0-9]{1,5}$' },
    HOST: { type: 'string', minLength: 1 },
    ROLES: { type: 'string', pattern: '^\\s*(api|worker|scheduler)\\s*(,\\s*(api|worker|scheduler)\\s*)*$' },
    LOG_LEVEL: { enum: [...LOG_LEVELS] },
    TOOLCOACH_DEV_KEY: { type: 'string', minLength: 8 },
    QUEUE_PREFIX: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' },
    WORKER_CONCURRENCY: { type: 'string', pattern: '^[1-9][0-9]{0,2}$' },
    WORKER_GROUP_MAX_BATCHES: { type: 'string', pattern: '^[1-9][0-9]{0,2}$' },
    WORKER_GROUP_MAX_EVENTS: { type: 'string', pattern: '^[1-9][0-9]{0,5}$' },
    WORKER_GROUP_WAIT_MS: { type: 'string', pattern: '^[0-9]{1,5}$' },
    WORKER_STUCK_AFTER_MS: { type: 'string', pattern: '^(0|[1-9][0-9]{3,6})$' },
    JOB_ATTEMPTS: { type: 'string', pattern: '^[1-9][0-9]{0,2}$' },
    MIGRATE_ON_START: { enum: ['true', 'false'] },
    SHUTDOWN_TIMEOUT_MS: { type: 'string', pattern: '^[0-9]{1,7}$' },
    WORKER_LOCK_DURATION_MS: { type: 'string', pattern: '^[1-9][0-9]{3,6}$' },
    WORKER_MAX_STALLED_COUNT: { type: 'string', pattern: '^[0-9]{1,3}$' },
    DEAD_LETTER_RETENTION_DAYS: { type: 'string', pattern: '^[0-9]{1,4}(\\.[0-9]{1,6})?$' },
    DEAD_LETTER_MAX_PER_PROJECT: { type: 'string', pattern: '^[1-9][0-9]{0,6}$' },
    MAX_TOOLS_PER_PROJECT: { type: 'string', pattern: '^[1-9][0-9]{0,4}$' },
    DEAD_LETTER_MAX_MB_PER_PROJECT: { type: 'string', pattern: '^[1-9][0-9]{0,5}$' },
    NIGHTLY_CRON: { type: 'string', pattern: '^\\S+(\\s+\\S+){4,5}$' },
    NIGHTLY_TIME_ZONE: { type: 'string', minLength: 1, maxLength: 64 },
    RETENTION_CRON: { type: 'string', pattern: '^\\S+(\\s+\\S+){4,5}$' },
    RATE_LIMIT_REQUESTS: { type: 'string', pattern: '^[0-9]{1,9}$' },
    RATE_LIMIT_WINDOW_SECONDS: { type: 'string', pattern: '^[1-9][0-9]{0,5}$' },
    AUTH_CACHE_TTL_MS: { type: 'string', pattern: '^[0-9]{1,8}$' },
    AUTH_FAILURES_PER_MINUTE: { type: 'string', pattern: '^[0-9]{1,6}$' },
    TRUST_PROXY: { type: 'string', maxLength: 4096 },
    ALERT_ALLOW_PRIVATE_DESTINATIONS: { enum: ['true', 'false'] },
    ALERT_EVALUATION_INTERVAL_MS: { type: 'string', pattern: '^[1-9][0-9]{3,7}$' },
    ALERT_DELIVERY_ATTEMPTS: { type: 'string', pattern: '^[1-9][0-9]?$' },
    ALERT_DELIVERY_BACKOFF_MS: { type: 'string', pattern: '^[1-9][0-9]{0,7}$' },
  },
} as const;

const HINTS: Record<string, string> = {
  DATABASE_URL: 'a postgresql:// URL',
  DATABASE_READ_URL: 'a postgresql:// URL of a streaming replica of DATABASE_URL, or empty to read from the primary',
  REDIS_URL: 'a redis:// or rediss:// URL, or redis+cluster://host:port,host:port for a Redis Cluster',
  REDIS_CLUSTER_NODES: 'the seed nodes of a Redis Cluster as host:port,host:port',
  PORT: 'a TCP port number (1-65535)',
  ROLES: `a comma list of ${ROLE_NAMES.join(', ')}`,
  LOG_LEVEL: `one of ${LOG_LEVELS.join(', ')}`,
  TOOLCOACH_DEV_KEY: 'a string of at least 8 characters',
  QUEUE_PREFIX: 'letters, digits, _ . - (1-64)',
  WORKER_CONCURRENCY: 'an integer from 1 to 999',
  WORKER_GROUP_MAX_BATCHES: 'an integer from 1 to 999',
  WORKER_GROUP_MAX_EVENTS: 'an integer from 1 to 999999',
  WORKER_GROUP_WAIT_MS: 'milliseconds, from 0 to 99999',
  WORKER_STUCK_AFTER_MS: 'milliseconds, 0 (never) or from 1000 to 9999999',
  JOB_ATTEMPTS: 'an integer from 1 to 999',
  MIGRATE_ON_START: 'true or false',
  SHUTDOWN_TIMEOUT_MS: 'milliseconds, an integer',
  WORKER_LOCK_DURATION_MS: 'milliseconds, from 1000 to 9999999',
  WORKER_MAX_STALLED_COUNT: 'an integer from 0 to 999',
  DEAD_LETTER_RETENTION_DAYS: 'days above 0, fractions allowed (0.5 is 12 hours)',
  DEAD_LETTER_MAX_PER_PROJECT: 'an integer from 1 to 9999999',
  MAX_TOOLS_PER_PROJECT: 'an integer from 1 to 99999',
  DEAD_LETTER_MAX_MB_PER_PROJECT: 'megabytes, an integer from 1 to 999999',
  NIGHTLY_CRON: 'a cron expression with 5 or 6 fields, e.g. "0 2 * * *"',
  NIGHTLY_TIME_ZONE: 'an IANA time zone such as UTC or Europe/Paris',
  RETENTION_CRON: 'a cron expression with 5 or 6 fields (UTC), e.g. "20 * * * *"',
  RATE_LIMIT_REQUESTS: 'a whole number (0 turns rate limiting off)',
  RATE_LIMIT_WINDOW_SECONDS: 'seconds, from 1 to 999999',
  AUTH_CACHE_TTL_MS: 'milliseconds (0 turns the cache off)',
  AUTH_FAILURES_PER_MINUTE: 'a whole number (0 turns the limit off)',
  TRUST_PROXY: TRUST_PROXY_HINT,
  ALERT_ALLOW_PRIVATE_DESTINATIONS: 'true or false',
  ALERT_EVALUATION_INTERVAL_MS: 'milliseconds, from 1000 to 99999999',
  ALERT_DELIVERY_ATTEMPTS: 'an integer from 1 to 99',
  ALERT_DELIVERY_BACKOFF_MS: 'milliseconds, from 1 to 99999999',
};

const validateEnv = ajvFor('env').compile(envSchema);

export function loadConfig(env: NodeJS.ProcessEnv): AppConfig {
  const raw: Record<string, string> = {};
  for (const key of Object.keys(DEFAULTS)) {
    const value = env[key];
    raw[key] = value === undefined || value === '' ? DEFAULTS[key] : value;
  }
  const problems: string[] = [];
  if (!validateEnv(raw)) {
    const seen = new Set<string>();
    for (const error of validateEnv.errors ?? []) {
      const key = error.instancePath.slice(1);
      if (seen.has(key)) continue;
      seen.add(key);
      problems.push(`${key}=${JSON.stringify(raw[key])} is invalid: expected ${HINTS[key] ?? error.message}`);
    }
  }
  const port = Number(raw.PORT);
  if (!problems.some((p) => p.startsWith('PORT=')) && (port < 1 || port > 65535)) {
    problems.push(`PORT=${JSON.stringify(raw.PORT)} is invalid: expected ${HINTS.PORT}`);
  }
  if (!problems.some((p) => p.startsWith('DEAD_LETTER_RETENTION_DAYS=')) && !(Number(raw.DEAD_LETTER_RETENTION_DAYS) > 0)) {
    problems.push(
      `DEAD_LETTER_RETENTION_DAYS=${JSON.stringify(raw.DEAD_LETTER_RETENTION_DAYS)} is invalid: expected ${HINTS.DEAD_LETTER_RETENTION_DAYS}`,
    );
  }
  if (!problems.some((p) => p.startsWith('NIGHTLY_TIME_ZONE=')) && !isTimeZone(raw.NIGHTLY_TIME_ZONE)) {
    problems.push(`NIGHTLY_TIME_ZONE=${JSON.stringify(raw.NIGHTLY_TIME_ZONE)} is invalid: expected ${HINTS.NIGHTLY_TIME_ZONE}`);
  }
  const trustProxy = readTrustProxy(raw.TRUST_PROXY);
  if (typeof trustProxy === 'string' && !problems.some((p) => p.startsWith('TRUST_PROXY='))) {
    problems.push(`TRUST_PROXY=${JSON.stringify(raw.TRUST_PROXY)} is invalid: ${trustProxy}`);
  }
  const redis = problems.some((p) => p.startsWith('REDIS_'))
    ? null
    : readRedisSettings(raw.REDIS_URL, raw.REDIS_CLUSTER_NODES, env.REDIS_URL !== undefined && env.REDIS_URL !== '');
  if (Array.isArray(redis)) problems.push(...redis);
  if (problems.length > 0 || redis === null || Array.isArray(redis) || typeof trustProxy === 'string') throw new ConfigError(problems);

  const nodeEnv = raw.NODE_ENV;
  return {
    nodeEnv,
    isProduction: nodeEnv === 'production',
    databaseUrl: raw.DATABASE_URL,
    databaseReadUrl: raw.DATABASE_READ_URL === '' ? null : raw.DATABASE_READ_URL,
    redisUrl: redis.url,
    redis: redis.target,
    port,
    host: raw.HOST,
    roles: new Set(raw.ROLES.split(',').map((r) => r.trim() as Role)),
    logLevel: raw.LOG_LEVEL as LogLevel,
    devKey: raw.TOOLCOACH_DEV_KEY,
    queuePrefix: raw.QUEUE_PREFIX,
    queueKeyPrefix: redis.target.mode === 'cluster' ? `{${raw.QUEUE_PREFIX}}` : raw.QUEUE_PREFIX,
    workerConcurrency: Number(raw.WORKER_CONCURRENCY),
    workerGroupMaxBatches: Number(raw.WORKER_GROUP_MAX_BATCHES),
    workerGroupMaxEvents: Number(raw.WORKER_GROUP_MAX_EVENTS),
    workerGroupWaitMs: Number(raw.WORKER_GROUP_WAIT_MS),
    workerStuckAfterMs: Number(raw.WORKER_STUCK_AFTER_MS),
    jobAttempts: Number(raw.JOB_ATTEMPTS),
    migrateOnStart: raw.MIGRATE_ON_START === 'true',
    shutdownTimeoutMs: Number(raw.SHUTDOWN_TIMEOUT_MS),
    workerLockDurationMs: Number(raw.WORKER_LOCK_DURATION_MS),
    workerMaxStalledCount: Number(raw.WORKER_MAX_STALLED_COUNT),
    deadLetterRetentionDays: Number(raw.DEAD_LETTER_RETENTION_DAYS),
    deadLetterMaxPerProject: Number(raw.DEAD_LETTER_MAX_PER_PROJECT),
    maxToolsPerProject: Number(raw.MAX_TOOLS_PER_PROJECT),
    deadLetterMaxBytesPerProject: Number(raw.DEAD_LETTER_MAX_MB_PER_PROJECT) * 1024 * 1024,
    nightlyCron: raw.NIGHTLY_CRON.trim(),
    nightlyTimeZone: raw.NIGHTLY_TIME_ZONE,
    retentionCron: raw.RETENTION_CRON.trim(),
    rateLimitRequests: Number(raw.RATE_LIMIT_REQUESTS),
    rateLimitWindowSeconds: Number(raw.RATE_LIMIT_WINDOW_SECONDS),
    authCacheTtlMs: Number(raw.AUTH_CACHE_TTL_MS),
    authFailuresPerMinute: Number(raw.AUTH_FAILURES_PER_MINUTE),
    trustProxy,
    alertAllowPrivateDestinations: raw.ALERT_ALLOW_PRIVATE_DESTINATIONS === 'true',
    alertEvaluationIntervalMs: Number(raw.ALERT_EVALUATION_INTERVAL_MS),
    alertDeliveryAttempts: Number(raw.ALERT_DELIVERY_ATTEMPTS),
    alertDeliveryBackoffMs: Number(raw.ALERT_DELIVERY_BACKOFF_MS),
  };
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** A URL safe to print: the password is replaced. */
export function redactUrl(url: string): string {
  if (new RegExp(CLUSTER_URL_PATTERN).test(url)) return redactRedisUrl(url);
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparseable URL>';
  }
}
