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
