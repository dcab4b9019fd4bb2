import { JobName } from '../../src/infra/queue/queue.names';
import { AcceptedEvent } from '../../src/infra/queue/queue.payloads';
import { QueueProducer } from '../../src/infra/queue/queue.producer';
import { anErrorEvent, anEvent } from '../factories/event.factory';
import { eventually, startTestApp, TestApp } from '../support/test-app';

const GROUP = 20;
const POISON_JOB = 9;
const RESENT_JOB = 14;
const RESENDS_JOB = 3;

describe('a group of 20 queued batches written in one transaction', () => {
  let api: TestApp;
  let worker: TestApp | undefined;
  beforeAll(async () => {
    // the batches are queued before any worker runs, so the worker takes all 20 into one group
    api = await startTestApp({ ROLES: 'api' });
    await api.db.sql.query(`
      CREATE FUNCTION refuse_poison() RETURNS trigger AS $$
      BEGIN
        IF NEW.id LIKE 'poison-%' THEN RAISE EXCEPTION 'injected poison: %', NEW.id; END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql;
      CREATE TRIGGER refuse_poison BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse_poison();`);
  });
  afterAll(async () => {
    await worker?.close();
    await api.close();
  });

  it('isolates the poison event of the middle batch without losing or double-counting the other 19', async () => {
    const batches = Array.from({ length: GROUP }, (_, job) =>
      Array.from({ length: 10 }, (_, i) =>
        i % 3 === 0 ? anErrorEvent(`boom ${i}`, { tool: `t${job % 4}` }) : anEvent({ tool: `t${job % 4}` }),
      ),
    );
    batches[POISON_JOB].splice(5, 0, anErrorEvent('boom', { id: 'poison-in-group', tool: 't1' }));
    // a batch re-sent by its client: the same event ids, stored once
    batches[RESENT_JOB] = batches[RESENDS_JOB];
    const producer = api.app.get(QueueProducer);
    const receivedAt = new Date().toISOString();
    for (const [job, events] of batches.entries()) {
      const payload = {
        projectId: api.projectId,
        receivedAt,
        events: events.map((e) => ({ ...e, occurredAt: receivedAt }) as AcceptedEvent),
      };
      await producer.enqueue(JobName.CategorizeBatch, payload, `group-${job}`);
    }

    worker = await startTestApp(
      { ROLES: 'worker', WORKER_CONCURRENCY: '1', WORKER_GROUP_MAX_BATCHES: String(GROUP), WORKER_GROUP_WAIT_MS: '60000' },
      { sharing: api },
    );
    await eventually(async () => ((await producer.events.getJobCounts('completed')).completed === GROUP ? true : undefined), 30_000);

    const outcomes = await Promise.all(batches.map(async (_, job) => (await producer.events.getJob(`group-${job}`))!.returnvalue));
    // the two batches holding the same ids: whichever joined the group first stores them, the other counts duplicates
    const [firstOfPair, secondOfPair] = outcomes[RESENT_JOB].stored === 0 ? [RESENDS_JOB, RESENT_JOB] : [RESENT_JOB, RESENDS_JOB];
    batches.forEach((_, job) => {
      const expected =
        job === POISON_JOB
          ? { received: 11, stored: 10, duplicates: 0, deadLettered: 1 }
          : job === secondOfPair
            ? { received: 10, stored: 0, duplicates: 10, deadLettered: 0 }
            : { received: 10, stored: 10, duplicates: 0, deadLettered: 0 };
      expect({ job, ...outcomes[job] }).toEqual({ job, ...expected, groupBatches: GROUP });
    });
    expect(outcomes[firstOfPair].stored + outcomes[secondOfPair].stored).toBe(10);

    const stored = (GROUP - 1) * 10;
    const { rows } = await api.db.sql.query(`
      SELECT (SELECT count(*)::int FROM events) AS events,
             (SELECT count(*)::int FROM events WHERE status = 'error') AS errors,
             (SELECT sum(calls)::int FROM hourly_rollups) AS calls,
             (SELECT sum(errors)::int FROM hourly_rollups) AS rolled_up_errors,
             (SELECT sum(count)::int FROM error_groups) AS grouped,
             (SELECT sum(calls)::int FROM daily_version_rollups) AS version_calls`);
    const errors = batches
      .filter((_, job) => job !== RESENT_JOB)
      .flat()
      .filter((e) => e.status === 'error' && e.id !== 'poison-in-group').length;
    expect(rows[0]).toEqual({ events: stored, errors, calls: stored, rolled_up_errors: errors, grouped: errors, version_calls: stored });

    const letters = (await api.request('GET', '/v1/admin/dead-letters')).body.items;
    expect(letters).toEqual([
      expect.objectContaining({
        originalJobId: `group-${POISON_JOB}`,
        events: 1,
        eventIds: ['poison-in-group'],
        failedReason: expect.stringContaining('injected poison: poison-in-group'),
      }),
    ]);
  });
});
