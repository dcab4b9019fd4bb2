import type { TestApp } from './test-app';
import { eventually } from './test-app';

/**
 * POSTs the events to /v1/events in batches of 500 (each answered 202) and waits until the worker has stored every
 * one of them (by id), so what a test asserts next (a nightly run, a stats query) sees them all.
 */
export async function sendEvents(
  t: Pick<TestApp, 'request' | 'db' | 'projectId'>,
  events: ReadonlyArray<Record<string, unknown>>,
  timeoutMs = 20_000,
) {
  for (let i = 0; i < events.length; i += 500) {
    const response = await t.request('POST', '/v1/events', { body: { events: events.slice(i, i + 500) } });
    if (response.status !== 202) throw new Error(`POST /v1/events answered ${response.status}: ${JSON.stringify(response.body)}`);
  }
  const ids = events.map((event) => String(event.id));
  await eventually(async () => {
    const { rows } = await t.db.sql.query('SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND id = ANY($2)', [
      t.projectId,
      ids,
    ]);
    return rows[0].n === ids.length ? true : undefined;
  }, timeoutMs);
}
