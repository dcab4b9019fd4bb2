import { randomUUID } from 'node:crypto';
import { startAppProcess } from '../support/app-process';
import { eventually, startTestApp, TestApp } from '../support/test-app';

describe('SIGTERM under load', () => {
  let t: TestApp;
  beforeAll(async () => {
    // this instance only provides the database, the project and a worker that drains what is left afterwards
    t = await startTestApp({ ROLES: 'worker' });
  });
  afterAll(() => t.close());

  it('loses nothing it accepted: every 202 is stored', async () => {
    const { app, url } = await startAppProcess(t);

    let accepted = 0;
    let stop = false;
    const sender = async () => {
      while (!stop) {
        const events = Array.from({ length: 50 }, () => ({ id: randomUUID(), tool: 'shutdown_tool', status: 'success', durationMs: 1 }));
        try {
          const response = await fetch(`${url}/v1/events`, {
            method: 'POST',
            headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ events }),
          });
          if (response.status === 202) accepted += ((await response.json()) as { accepted: number }).accepted;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    };
    const senders = Array.from({ length: 4 }, sender);
    await eventually(async () => (accepted >= 2000 ? true : undefined), 30_000, 20);
    app.child.kill('SIGTERM');
    expect(await app.exited).toBe(0);
    stop = true;
    await Promise.all(senders);
    expect(accepted).toBeGreaterThan(0);

    await eventually(
      async () => {
        const { rows } = await t.db.sql.query('SELECT count(*)::int AS n FROM events');
        return rows[0].n === accepted ? true : undefined;
      },
      60_000,
      200,
    );
    const { rows } = await t.db.sql.query('SELECT sum(calls)::int AS calls FROM hourly_rollups');
    expect(rows[0].calls).toBe(accepted);
  }, 120_000);
});
