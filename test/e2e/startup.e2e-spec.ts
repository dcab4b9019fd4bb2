import { createServer, Server } from 'node:net';
import { randomBytes } from 'node:crypto';
import { spawnApp } from '../support/app-process';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { eventually } from '../support/test-app';
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

  it('says Postgres refused the login (not that it is unreachable) when the user or password is wrong', async () => {
    const url = new URL(BASE_DATABASE_URL);
    url.username = 'no_such_toolcoach_user';
    url.password = 'hunter2';
    const app = spawnApp({ DATABASE_URL: url.toString(), REDIS_URL });
    expect(await app.exited).toBe(1);
    expect(app.output()).toContain('refused the login: authentication failed');
    expect(app.output()).toContain('Check the user and password in DATABASE_URL');
    expect(app.output()).not.toContain('unreachable');
    expect(app.output()).not.toContain('hunter2');
  });

  describe('on a database of its own', () => {
    let db: TestDatabase;
    let blocker: Server;
    let busyPort: number;
    beforeAll(async () => {
      db = await createTestDatabase();
      blocker = createServer();
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      busyPort = (blocker.address() as { port: number }).port;
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
      await db.drop();
    });
    const env = () => ({
      DATABASE_URL: db.url,
      REDIS_URL,
      QUEUE_PREFIX: `tc-test-${randomBytes(4).toString('hex')}`,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      NODE_ENV: 'development',
      TOOLCOACH_DEV_KEY: 'tc_startup_dev_key',
    });

    it('on a busy port prints one line naming the port and exits 1, with no stack and nothing started', async () => {
      const app = spawnApp({ ...env(), PORT: String(busyPort) });
      expect(await app.exited).toBe(1);
      const lines = app.output().trim().split('\n');
      expect(lines).toEqual([
        `Port ${busyPort} is already in use (is toolcoach already running?). Stop that process, or set PORT to a free port.`,
      ]);
    });

    it('logs start-up on one screen at info, each line valid JSON without duplicate keys, the last naming the dashboard, docs and dev key', async () => {
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const port = (probe.address() as { port: number }).port;
      await new Promise<void>((resolve) => probe.close(() => resolve()));
      const app = spawnApp({ ...env(), PORT: String(port) });
      try {
        const output = await eventually(async () => (/toolcoach ready/.test(app.output()) ? app.output() : undefined), 20_000);
        const lines = output.trim().split('\n');
        expect(lines.length).toBeLessThanOrEqual(12);
        for (const line of lines) {
          const keys = topLevelKeys(line);
          expect(keys).toEqual([...new Set(keys)]);
          expect(JSON.parse(line)).toMatchObject({ level: 'info' });
        }
        expect(output).not.toMatch(/Mapped \{|dependencies initialized|RoutesResolver/);
        const last = JSON.parse(lines[lines.length - 1]) as { msg: string };
        expect(last.msg).toContain(`http://127.0.0.1:${port}/dashboard`);
        expect(last.msg).toContain(`http://127.0.0.1:${port}/docs`);
        expect(last.msg).toContain('Authorization: Bearer tc_startup_dev_key');
      } finally {
        app.child.kill('SIGTERM');
        await app.exited;
      }
    });
  });
});

/** The keys of a one-line JSON object as written, duplicates kept (JSON.parse would silently keep the last one). */
function topLevelKeys(line: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (char === '"') {
      let end = i + 1;
      while (line[end] !== '"') end += line[end] === '\\' ? 2 : 1;
      if (depth === 1 && line[end + 1] === ':') keys.push(line.slice(i + 1, end));
      i = end;
    } else if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') depth--;
  }
  return keys;
}
