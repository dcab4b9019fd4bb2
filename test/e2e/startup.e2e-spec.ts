import { spawnApp } from '../support/app-process';
import { BASE_DATABASE_URL, REDIS_URL } from '../support/test-env';

describe('starting the compiled app', () => {
  it('refuses bad configuration, naming every bad variable, and exits non-zero', async () => {
    const app = spawnApp({ PORT: 'eighty', ROLES: 'api,web' });
    expect(await app.exited).toBe(1);
    expect(app.output()).toMatch(/PORT="eighty" is invalid/);
    expect(app.output()).toMatch(/ROLES="api,web" is invalid/);
  });

  it('names Postgres, the URL without its password, and how to start it when Postgres is unreachable', async () => {
    const app = spawnApp({ DATABASE_URL: 'postgresql://app:hunter2@127.0.0.1:1/toolcoach', REDIS_URL });
    expect(await app.exited).toBe(1);
    expect(app.output()).toContain('Postgres is unreachable at postgresql://app:***@127.0.0.1:1/toolcoach');
    expect(app.output()).toContain('docker compose up -d db redis');
    expect(app.output()).not.toContain('hunter2');
  });

  it('names Redis when Redis is unreachable', async () => {
    const app = spawnApp({ DATABASE_URL: BASE_DATABASE_URL, REDIS_URL: 'redis://127.0.0.1:1' });
    expect(await app.exited).toBe(1);
    expect(app.output()).toContain('Redis is unreachable at redis://127.0.0.1:1');
    expect(app.output()).not.toContain('Postgres is unreachable');
  });
});
