import { aggregateBatch } from '../../src/categorize/batch-aggregates';
import { CategorizeRepository } from '../../src/categorize/categorize.repository';
import { toRow } from '../../src/categorize/categorize.service';
import { JobName } from '../../src/infra/queue/queue.names';
import { AcceptedEvent } from '../../src/infra/queue/queue.payloads';
import { QueueProducer } from '../../src/infra/queue/queue.producer';
import { readMigrations } from '../../src/infra/prisma/migrate';
import { addDays, partitionNameOf, startOfUtcDay } from '../../src/retention/partition-plan';
import { RetentionRepository } from '../../src/retention/retention.repository';
import { MaintenanceReport, RetentionService } from '../../src/retention/retention.service';
import { anErrorEvent, anEvent } from '../factories/event.factory';
import { createEmptyDatabase } from '../support/test-database';
import { eventually, startTestApp, TestApp } from '../support/test-app';

const MIGRATION = '20261125000000_partitioned_events';
const SIMULATED_DAYS = 40;
const EVENTS_PER_DAY = 3;

describe('events partitioned by day, migrated from the unpartitioned table', () => {
  it('keeps every row of a populated table, each in the partition of its day, and its id as the idempotency key', async () => {
    const db = await createEmptyDatabase();
    try {
      for (const migration of readMigrations().filter((m) => m.name < MIGRATION)) await db.sql.query(migration.sql);
      await db.sql.query(
        `INSERT INTO projects (id, name) VALUES ('00000000-0000-0000-0000-00000000000a', 'a'), ('00000000-0000-0000-0000-00000000000b', 'b')`,
      );
      // 500 rows over 50 days of two projects, one id in both projects, arguments and diagnosis columns filled
      await db.sql.query(`
        INSERT INTO events (project_id, id, tool, status, arguments, error_message, occurred_at, received_at, category, evidence)
        SELECT CASE WHEN g % 2 = 0 THEN '00000000-0000-0000-0000-00000000000a' ELSE '00000000-0000-0000-0000-00000000000b' END::uuid,
          CASE WHEN g = 1 THEN 'shared-id' ELSE 'old-' || g END, 'tool-' || (g % 7), CASE WHEN g % 3 = 0 THEN 'error' ELSE 'success' END,
          jsonb_build_object('n', g), 'message ' || g, timestamptz '1999-01-01' + g * interval '1 second',
          now() - g * interval '2 hours 23 minutes', CASE WHEN g % 3 = 0 THEN 'overflow' END, 'schema_too_expensive'
        FROM generate_series(1, 500) g;
        INSERT INTO events (project_id, id, tool, status, occurred_at, received_at)
        VALUES ('00000000-0000-0000-0000-00000000000a', 'shared-id', 't', 'success', now(), now());`);
      const rowsOf = async () =>
        (await db.sql.query(`SELECT md5(e::text) AS row FROM (SELECT * FROM events ORDER BY project_id, id) e`)).rows.map((r) => r.row);
      const before = await rowsOf();

      const migration = readMigrations().find((m) => m.name === MIGRATION)!;
      await db.sql.query('BEGIN');
      await db.sql.query(migration.sql);
      await db.sql.query('COMMIT');

      expect(await rowsOf()).toEqual(before);
      expect(before).toHaveLength(501);
      const { rows } = await db.sql.query(`
        SELECT (SELECT count(*)::int FROM events_default) AS in_default,
               (SELECT count(*)::int FROM event_ids) AS ids,
               (SELECT count(*)::int FROM events e JOIN event_ids i USING (project_id, id, received_at)) AS ids_matching,
               (SELECT count(*)::int FROM events e
                WHERE tableoid::regclass::text <> 'events_p' || to_char(received_at AT TIME ZONE 'UTC', 'YYYYMMDD')) AS misplaced,
               (SELECT relkind::text FROM pg_class WHERE relname = 'events') AS kind`);
      expect(rows[0]).toEqual({ in_default: 0, ids: 501, ids_matching: 501, misplaced: 0, kind: 'p' });
    } finally {
      await db.drop();
    }
  });
});

describe('retention of partitioned events', () => {
  let t: TestApp;
  let retention: RetentionService;
  let shortProject: { projectId: string; apiKey: string };

  beforeAll(async () => {
    t = await startTestApp();
    retention = t.app.get(RetentionService, { strict: false });
    shortProject = await t.createProject(`short-${t.projectId.slice(0, 8)}`);
  });
  afterAll(() => t.close());

  describe('GET and PUT /v1/retention', () => {
    it('answers the defaults: raw events 30 days, rollups 400', async () => {
      const response = await t.request('GET', '/v1/retention');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ rawEventRetentionDays: 30, rollupRetentionDays: 400 });
    });

    it.each([
      [{ rawEventRetentionDays: 0 }, '/rawEventRetentionDays'],
      [{ rawEventRetentionDays: 3651 }, '/rawEventRetentionDays'],
      [{ rawEventRetentionDays: 7.5 }, '/rawEventRetentionDays'],
      [{ rawEventRetentionDays: '7' }, '/rawEventRetentionDays'],
      [{}, '/rawEventRetentionDays'],
    ])('refuses %j with 400 naming %s, and keeps the setting', async (body, path) => {
      const response = await t.request('PUT', '/v1/retention', { body, key: shortProject.apiKey });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('invalid_retention');
      expect(response.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
      expect((await t.request('GET', '/v1/retention', { key: shortProject.apiKey })).body.rawEventRetentionDays).toBe(30);
    });

    it("sets only the caller's project", async () => {
      const response = await t.request('PUT', '/v1/retention', { body: { rawEventRetentionDays: 7 }, key: shortProject.apiKey });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ rawEventRetentionDays: 7, rollupRetentionDays: 400 });
      expect((await t.request('GET', '/v1/retention', { key: shortProject.apiKey })).body.rawEventRetentionDays).toBe(7);
      expect((await t.request('GET', '/v1/retention')).body.rawEventRetentionDays).toBe(30);
    });
  });

  it('counts an id re-sent on a later day (another partition) as a duplicate and stores it once', async () => {
    const original = anEvent({ id: 'resent-next-day' });
    expect((await t.request('POST', '/v1/events', { body: { events: [original] } })).status).toBe(202);
    const stored = await t.storedEvent('resent-next-day');
    // the same id comes back in a batch the API received tomorrow, with an event that is new
    const tomorrow = addDays(startOfUtcDay(new Date()), 1);
    const receivedAt = new Date(tomorrow.getTime() + 3_600_000).toISOString();
    const events = [original, anEvent({ id: 'new-next-day' })].map((e) => ({ ...e, occurredAt: receivedAt }) as AcceptedEvent);
    const producer = t.app.get(QueueProducer);
    await producer.enqueue(JobName.CategorizeBatch, { projectId: t.projectId, receivedAt, events }, 'resent-next-day');

    const outcome = await eventually(async () => (await producer.events.getJob('resent-next-day'))?.returnvalue ?? undefined, 20_000);

    expect(outcome).toMatchObject({ received: 2, stored: 1, duplicates: 1, deadLettered: 0 });
    const { rows } = await t.db.sql.query(
      `SELECT id, tableoid::regclass::text AS partition, received_at FROM events WHERE project_id = $1 AND id LIKE '%-next-day' ORDER BY id`,
      [t.projectId],
    );
    expect(rows.map((r) => [r.id, r.partition])).toEqual([
      ['new-next-day', partitionNameOf(tomorrow)],
      ['resent-next-day', partitionNameOf(startOfUtcDay(new Date(stored.receivedAt)))],
    ]);
    expect((await t.request('GET', '/v1/events/resent-next-day')).body.receivedAt).toBe(stored.receivedAt);
  });

  it('postpones a drop whose lock is not granted within the lock timeout, and drops it on the next try', async () => {
    const repository = t.app.get(RetentionRepository, { strict: false });
    const day = new Date('2000-01-01T00:00:00Z');
    expect(await repository.createPartition(day)).toBe(0);
    // a long transaction reading events holds a lock the drop's ACCESS EXCLUSIVE waits for
    await t.db.sql.query('BEGIN');
    await t.db.sql.query('LOCK TABLE events IN ACCESS SHARE MODE');
    try {
      expect(await repository.dropPartition(partitionNameOf(day))).toBe(false);
    } finally {
      await t.db.sql.query('COMMIT');
    }
    expect(await repository.dropPartition(partitionNameOf(day))).toBe(true);
    expect(await repository.listEventPartitions()).not.toContain(partitionNameOf(day));
  });

  describe(`${SIMULATED_DAYS} simulated days, a project keeping 30 days and one keeping 7`, () => {
    const now = new Date();
    const today = startOfUtcDay(now);
    const firstDay = addDays(today, -(SIMULATED_DAYS - 1));
    const statsRange = `from=${addDays(now, -30).toISOString()}&to=${now.toISOString()}`;
    let statsBefore: unknown[];
    let run: MaintenanceReport;

    const partitionsOf = async () =>
      (
        await t.db.sql.query(`SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
          WHERE i.inhparent = 'events'::regclass ORDER BY c.relname`)
      ).rows.map((r) => r.relname as string);
    const countsOf = async (projectId: string) =>
      (
        await t.db.sql.query(
          `SELECT (SELECT count(*)::int FROM events WHERE project_id = $1 AND id LIKE 'day-%') AS events,
                  (SELECT count(*)::int FROM event_ids WHERE project_id = $1 AND id LIKE 'day-%') AS ids,
                  (SELECT min(received_at) FROM events WHERE project_id = $1 AND id LIKE 'day-%') AS oldest,
                  (SELECT sum(calls)::int FROM hourly_rollups WHERE project_id = $1) AS calls,
                  (SELECT count(*)::int FROM error_groups WHERE project_id = $1) AS groups`,
          [projectId],
        )
      ).rows[0];
    const dashboardOf = async (key: string) =>
      Promise.all(
        [`/v1/stats/overview?${statsRange}`, `/v1/stats/tools?${statsRange}`, `/v1/tools/lookup/stats?${statsRange}`].map(async (path) => {
          const response = await t.request('GET', path, { key });
          expect(response.status).toBe(200);
          return response.body;
        }),
      );

    beforeAll(async () => {
      // the write path of the worker, with the received_at each simulated day's batches had
      const repository = t.app.get(CategorizeRepository, { strict: false });
      for (let offset = 0; offset < SIMULATED_DAYS; offset += 1) {
        const receivedAt = new Date(addDays(firstDay, offset).getTime() + 12 * 3_600_000);
        if (receivedAt > now) receivedAt.setTime(now.getTime() - 1000);
        for (const { projectId } of [{ projectId: t.projectId }, shortProject]) {
          const rows = Array.from({ length: EVENTS_PER_DAY }, (_, i) => {
            const event = i === 0 ? anErrorEvent(`quota exceeded on day ${offset}`, { tool: 'lookup' }) : anEvent({ tool: 'lookup' });
            return toRow(
              projectId,
              { ...event, id: `day-${offset}-${i}`, occurredAt: receivedAt.toISOString() } as AcceptedEvent,
              receivedAt,
              undefined,
            );
          });
          await repository.writeBatch(projectId, rows, (inserted) => aggregateBatch(inserted));
        }
      }
      // rollups and a group older than 400 days go; those younger stay
      const [older, younger] = [addDays(now, -401).toISOString(), addDays(now, -399).toISOString()];
      await t.db.sql.query(
        `INSERT INTO hourly_rollups (project_id, tool, hour, calls, latency_buckets) VALUES ($1, 'ancient', $2, 5, '{}'), ($1, 'ancient', $3, 7, '{}')`,
        [t.projectId, older, younger],
      );
      await t.db.sql.query(
        `INSERT INTO error_groups (id, project_id, fingerprint, tool, category, message_template, count, first_seen, last_seen)
         VALUES (gen_random_uuid(), $1, repeat('f', 40), 'ancient', 'overflow', 'x', 1, $2, $2)`,
        [t.projectId, older],
      );
    });

    it('on the first day, the maintenance gives each simulated day a partition and moves its rows out of the default one', async () => {
      const { rows } = await t.db.sql.query(`SELECT count(*)::int AS n FROM events_default WHERE id LIKE 'day-%'`);
      expect(rows[0].n).toBeGreaterThan(0);

      const first = await retention.runMaintenance(new Date(firstDay.getTime() + 12 * 3_600_000));

      expect(first.ran).toBe(true);
      expect(first.movedFromDefault).toBe(rows[0].n);
      expect((await t.db.sql.query(`SELECT count(*)::int AS n FROM events_default`)).rows[0].n).toBe(0);
      const partitions = await partitionsOf();
      for (let offset = 0; offset < SIMULATED_DAYS; offset += 1) expect(partitions).toContain(partitionNameOf(addDays(firstDay, offset)));
      expect(first.droppedPartitions).toEqual([]);
      expect(first.deletedEvents).toBe(0);
    });

    it('is skipped, changing nothing, while another process holds the maintenance lock', async () => {
      const partitions = await partitionsOf();
      await t.db.sql.query(`SELECT pg_advisory_lock(hashtextextended('toolcoach:events-retention', 0))`);
      try {
        const skipped = await retention.runMaintenance(now, 10);
        expect(skipped).toMatchObject({ ran: false, droppedPartitions: [], deletedEvents: 0 });
        expect(await partitionsOf()).toEqual(partitions);
      } finally {
        await t.db.sql.query(`SELECT pg_advisory_unlock(hashtextextended('toolcoach:events-retention', 0))`);
      }
    });

    it('today: the days past 30 are dropped as whole partitions and the dashboard answers the same', async () => {
      statsBefore = [await dashboardOf(t.apiKey), await dashboardOf(shortProject.apiKey)];
      const kept = await countsOf(t.projectId);

      run = await retention.runMaintenance(now, 10);

      const cutoff = addDays(today, -30);
      const expired = Array.from({ length: SIMULATED_DAYS }, (_, offset) => addDays(firstDay, offset)).filter(
        (day) => addDays(day, 1) <= cutoff,
      );
      expect(expired).toHaveLength(SIMULATED_DAYS - 31);
      expect(run.droppedPartitions).toEqual(expired.map(partitionNameOf));
      const partitions = await partitionsOf();
      for (const day of expired) expect(partitions).not.toContain(partitionNameOf(day));
      expect(partitions).toContain(partitionNameOf(cutoff));
      expect(partitions).toContain(partitionNameOf(addDays(today, 7)));

      const after = await countsOf(t.projectId);
      expect(after.events).toBe(31 * EVENTS_PER_DAY);
      expect(after.ids).toBe(31 * EVENTS_PER_DAY);
      expect(after.oldest.getTime()).toBeGreaterThanOrEqual(cutoff.getTime());
      // rollups and groups are kept 400 days: only the 401-day-old rollup row and group went
      expect(after.calls).toBe(kept.calls - 5);
      expect(after.groups).toBe(kept.groups - 1);
      expect(await dashboardOf(t.apiKey)).toEqual(statsBefore[0]);
      expect(await dashboardOf(shortProject.apiKey)).toEqual(statsBefore[1]);
    });

    it('the 7-day project loses its older rows from the days the 30-day project keeps, in bounded deletes', async () => {
      const short = await countsOf(shortProject.projectId);
      expect(short.events).toBe(8 * EVENTS_PER_DAY);
      expect(short.ids).toBe(8 * EVENTS_PER_DAY);
      expect(short.oldest.getTime()).toBeGreaterThanOrEqual(addDays(today, -7).getTime());
      // 23 days of the 30-day window were past 7 days: 69 rows, at most 10 per statement
      expect(run.deletedEvents).toBe(23 * EVENTS_PER_DAY);
      expect(run.largestDelete).toBeLessThanOrEqual(10);
      expect(run.deleteStatements).toBeGreaterThanOrEqual(Math.ceil((23 * EVENTS_PER_DAY) / 10));
      const long = await countsOf(t.projectId);
      expect(long.events).toBe(31 * EVENTS_PER_DAY);
    });

    it('deletes at most the batch size in one statement', async () => {
      const repository = t.app.get(RetentionRepository, { strict: false });
      const otherProject = '00000000-0000-0000-0000-0000000000ff';
      await t.db.sql.query(
        `INSERT INTO events (project_id, id, tool, status, occurred_at, received_at)
         SELECT $1, 'batch-' || g, 't', 'success', now(), now() FROM generate_series(1, 3) g`,
        [otherProject],
      );
      const partition = partitionNameOf(today);

      expect(await repository.deleteProjectRows(partition, otherProject, 2)).toBe(2);
      expect(await repository.deleteProjectRows(partition, otherProject, 2)).toBe(1);
      expect(await repository.deleteProjectRows(partition, otherProject, 2)).toBe(0);
      expect((await countsOf(t.projectId)).events).toBe(31 * EVENTS_PER_DAY);
    });

    it('a second run changes nothing', async () => {
      const partitions = await partitionsOf();
      const counts = [await countsOf(t.projectId), await countsOf(shortProject.projectId)];

      const second = await retention.runMaintenance(now, 10);

      expect(second).toMatchObject({
        ran: true,
        createdPartitions: [],
        movedFromDefault: 0,
        droppedPartitions: [],
        postponedPartitions: [],
        deletedEvents: 0,
        deletedEventIds: 0,
        deletedRollups: 0,
        deletedUnknownTemplates: 0,
        largestDelete: 0,
      });
      expect(await partitionsOf()).toEqual(partitions);
      expect([await countsOf(t.projectId), await countsOf(shortProject.projectId)]).toEqual(counts);
    });
  });
});
