import { anErrorEvent, anEvent } from '../factories/event.factory';
import { eventually, startTestApp, TestApp } from '../support/test-app';

describe('a poison event the database refuses', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    // the fault: this test database refuses one event id, as a bad row would
    await t.db.sql.query(`
      CREATE FUNCTION refuse_poison() RETURNS trigger AS $$
      BEGIN
        IF NEW.id LIKE 'poison-%' THEN RAISE EXCEPTION 'injected poison: %', NEW.id; END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql;
      CREATE TRIGGER refuse_poison BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse_poison();`);
  });
  afterAll(() => t.close());

  it('goes to the dead-letter queue with the error while the rest of its batch is stored, and replays after a fix', async () => {
    const events = Array.from({ length: 9 }, (_, i) => (i % 3 === 0 ? anErrorEvent(`boom ${i}`, { tool: 'p' }) : anEvent({ tool: 'p' })));
    events.splice(4, 0, anErrorEvent('boom', { id: 'poison-1', tool: 'p' }));
    expect((await t.request('POST', '/v1/events', { body: { events } })).status).toBe(202);

    const letters = await eventually(async () => {
      const response = await t.request('GET', '/v1/admin/dead-letters');
      return response.body.items.length > 0 ? response.body.items : undefined;
    });
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ events: 1, failedReason: expect.stringContaining('injected poison: poison-1') });
    const { rows } = await t.db.sql.query(`SELECT count(*)::int AS n, (SELECT sum(calls)::int FROM hourly_rollups) AS calls FROM events`);
    expect(rows[0]).toEqual({ n: 9, calls: 9 });

    // another project cannot see or replay it
    const other = await t.createProject('poison-other');
    expect((await t.request('GET', '/v1/admin/dead-letters', { key: other.apiKey })).body.items).toEqual([]);
    expect((await t.request('POST', `/v1/admin/dead-letters/${letters[0].id}/replay`, { key: other.apiKey })).status).toBe(404);

    await t.db.sql.query('DROP TRIGGER refuse_poison ON events');
    const replay = await t.request('POST', `/v1/admin/dead-letters/${letters[0].id}/replay`);
    expect(replay.status).toBe(202);
    await eventually(async () => ((await t.request('GET', '/v1/events/poison-1')).status === 200 ? true : undefined));
    expect((await t.request('GET', '/v1/admin/dead-letters')).body.items).toEqual([]);
    const after = await t.db.sql.query(`SELECT count(*)::int AS n, (SELECT sum(calls)::int FROM hourly_rollups) AS calls FROM events`);
    expect(after.rows[0]).toEqual({ n: 10, calls: 10 });
  });
});
