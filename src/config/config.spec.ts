import { ConfigError, loadConfig, redactUrl } from './config';

function problemsOf(env: NodeJS.ProcessEnv): readonly string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

describe('loadConfig', () => {
  it('applies the documented defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config.databaseUrl).toBe('postgresql://postgres@127.0.0.1:5432/toolcoach');
    expect(config.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(config.port).toBe(3000);
    expect([...config.roles].sort()).toEqual(['api', 'scheduler', 'worker']);
    expect(config.devKey).toBe('tc_dev_key');
    expect(config.isProduction).toBe(false);
  });

  it('parses a subset of roles with spaces', () => {
    expect([...loadConfig({ ROLES: 'api, worker' }).roles]).toEqual(['api', 'worker']);
  });

  it('reports every bad variable at once, naming each', () => {
    const problems = problemsOf({ PORT: 'abc', ROLES: 'api,web', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x' });
    expect(problems).toHaveLength(4);
    expect(problems.join('\n')).toMatch(/PORT="abc".*TCP port/);
    expect(problems.join('\n')).toMatch(/ROLES="api,web".*api, worker, scheduler/);
    expect(problems.join('\n')).toMatch(/LOG_LEVEL="loud"/);
    expect(problems.join('\n')).toMatch(/DATABASE_URL="mysql:\/\/x".*postgresql/);
  });

  it('reads DATABASE_READ_URL as an optional postgresql:// URL of a replica', () => {
    expect(loadConfig({}).databaseReadUrl).toBeNull();
    expect(loadConfig({ DATABASE_READ_URL: 'postgres://replica:5433/tc' }).databaseReadUrl).toBe('postgres://replica:5433/tc');
    expect(problemsOf({ DATABASE_READ_URL: 'mysql://replica/tc' })).toEqual([
      expect.stringMatching(/^DATABASE_READ_URL="mysql:\/\/replica\/tc" is invalid: expected a postgresql:\/\/ URL of a streaming replica/),
    ]);
  });

  it('rejects a port outside 1-65535', () => {
    expect(problemsOf({ PORT: '70000' })).toEqual([expect.stringMatching(/^PORT="70000"/)]);
  });

  it('reads the stall limit and the dead-letter caps, with fractions of a day for retention', () => {
    const defaults = loadConfig({});
    expect(defaults).toMatchObject({
      workerMaxStalledCount: 2,
      deadLetterRetentionDays: 14,
      deadLetterMaxPerProject: 1000,
      deadLetterMaxBytesPerProject: 64 * 1024 * 1024,
    });
    expect(loadConfig({ WORKER_MAX_STALLED_COUNT: '0', DEAD_LETTER_RETENTION_DAYS: '0.5' })).toMatchObject({
      workerMaxStalledCount: 0,
      deadLetterRetentionDays: 0.5,
    });
    const problems = problemsOf({
      WORKER_MAX_STALLED_COUNT: '-1',
      DEAD_LETTER_RETENTION_DAYS: '0',
      DEAD_LETTER_MAX_PER_PROJECT: '0',
      DEAD_LETTER_MAX_MB_PER_PROJECT: '1e3',
    });
    expect(problems.map((p) => p.split('=')[0]).sort()).toEqual([
      'DEAD_LETTER_MAX_MB_PER_PROJECT',
      'DEAD_LETTER_MAX_PER_PROJECT',
      'DEAD_LETTER_RETENTION_DAYS',
      'WORKER_MAX_STALLED_COUNT',
    ]);
  });

  it('checks the nightly cron expression and time zone', () => {
    expect(loadConfig({}).nightlyCron).toBe('0 2 * * *');
    const problems = problemsOf({ NIGHTLY_CRON: 'daily', NIGHTLY_TIME_ZONE: 'Mars/Olympus' });
    expect(problems.join('\n')).toMatch(/NIGHTLY_CRON="daily" is invalid/);
    expect(problems.join('\n')).toMatch(/NIGHTLY_TIME_ZONE="Mars\/Olympus" is invalid/);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '' }).port).toBe(3000);
  });
});

describe('redactUrl', () => {
  it('hides the password but keeps user, host and database', () => {
    expect(redactUrl('postgresql://app:s3cret@db:5432/toolcoach')).toBe('postgresql://app:***@db:5432/toolcoach');
  });
});

describe('loadConfig: Redis Cluster', () => {
  it('keeps a single Redis as given, with the queue prefix unchanged so existing key names stay', () => {
    const config = loadConfig({ REDIS_URL: 'redis://:pw@10.0.0.5:6380/2', QUEUE_PREFIX: 'tc' });
    expect(config.redis).toEqual({ mode: 'single', url: 'redis://:pw@10.0.0.5:6380/2' });
    expect(config.queueKeyPrefix).toBe('tc');
  });

  it('reads a redis+cluster:// URL with credentials, TLS and IPv6 seeds, and hash-tags the queue prefix', () => {
    const config = loadConfig({ REDIS_URL: 'rediss+cluster://app:s%40cret@node-a:7000,10.0.0.2:7001,[::1]:7002', QUEUE_PREFIX: 'tc' });
    expect(config.redis).toEqual({
      mode: 'cluster',
      nodes: [
        { host: 'node-a', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
        { host: '::1', port: 7002 },
      ],
      username: 'app',
      password: 's@cret',
      isTls: true,
    });
    expect(config.queueKeyPrefix).toBe('{tc}');
    expect(config.redisUrl).toBe('rediss+cluster://app:s%40cret@node-a:7000,10.0.0.2:7001,[::1]:7002');
    expect(redactUrl(config.redisUrl)).toBe('rediss+cluster://app:***@node-a:7000,10.0.0.2:7001,[::1]:7002');
  });

  it('reads REDIS_CLUSTER_NODES as the seeds of a cluster, named again as a redis+cluster:// URL', () => {
    const config = loadConfig({ REDIS_CLUSTER_NODES: '127.0.0.1:7000,127.0.0.1:7001' });
    expect(config.redis).toEqual({
      mode: 'cluster',
      nodes: [
        { host: '127.0.0.1', port: 7000 },
        { host: '127.0.0.1', port: 7001 },
      ],
      isTls: false,
    });
    expect(config.redisUrl).toBe('redis+cluster://127.0.0.1:7000,127.0.0.1:7001');
    expect(loadConfig({ REDIS_URL: config.redisUrl }).redis).toEqual(config.redis);
    expect(config.queueKeyPrefix).toBe('{toolcoach}');
  });

  it.each([
    ['REDIS_URL', 'redis+cluster://127.0.0.1', /REDIS_URL=.*host:port/],
    ['REDIS_URL', 'redis+cluster://127.0.0.1:7000,127.0.0.1:70000', /"127.0.0.1:70000" is not one/],
    ['REDIS_URL', 'redis+cluster://127.0.0.1:7000/3', /only database 0, not 3/],
    ['REDIS_URL', 'redis+cluster://127.0.0.1:7000?tls=1', /no query string/],
    ['REDIS_URL', 'redis+cluster://:hunter2@127.0.0.1:7000,,', /REDIS_URL="redis\+cluster:\/\/:\*\*\*@.*is not one/],
    ['REDIS_URL', `redis+cluster://${Array.from({ length: 33 }, (_, i) => `h${i}:7000`).join(',')}`, /at most 32 seed nodes, got 33/],
    ['REDIS_URL', 'memcached://127.0.0.1:11211', /REDIS_URL=.*redis\+cluster:\/\/host:port/],
    ['REDIS_CLUSTER_NODES', '127.0.0.1:7000, 127.0.0.1:7001', /REDIS_CLUSTER_NODES=.*host:port,host:port/],
    ['REDIS_CLUSTER_NODES', '127.0.0.1', /REDIS_CLUSTER_NODES=.*"127.0.0.1" is not one/],
  ])('rejects %s=%j with a message that says why', (name, value, message) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
    expect(problems[0]).not.toContain('hunter2');
  });

  it('refuses REDIS_URL and REDIS_CLUSTER_NODES together, and still reports the other bad variables', () => {
    const problems = problemsOf({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_NODES: '127.0.0.1:7000', PORT: 'x' });
    expect(problems).toEqual([expect.stringMatching(/^PORT=/), expect.stringMatching(/REDIS_URL and REDIS_CLUSTER_NODES are both set/)]);
  });
});
