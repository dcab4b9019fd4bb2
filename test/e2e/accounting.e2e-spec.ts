import { randomUUID } from 'node:crypto';
import { DeadLetterSummary } from '../../src/infra/queue/dead-letters/dead-letter.entry';
import { anErrorEvent, anEvent } from '../factories/event.factory';
import { AppProcess, spawnApp } from '../support/app-process';
import { eventually, isWorkerIdle, startTestApp, TestApp } from '../support/test-app';

/**
 * The accounting invariant: every event the API accepted (202, listed in `ids`) is either stored or listed as a dead
 * letter of its project, whatever the database refuses and however often the worker dies.
 */

type Key = { apiKey: string; projectId: string };

async function allDeadLetters(t: TestApp, project: Key): Promise<DeadLetterSummary[]> {
  const items: DeadLetterSummary[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `?limit=200&cursor=${cursor}` : '?limit=200';
    const response = await t.request('GET', `/v1/admin/dead-letters${query}`, { key: project.apiKey });
    expect(response.status).toBe(200);
    items.push(...response.body.items);
    cursor = response.body.nextCursor;
  } while (cursor);
  return items;
}

async function accountingOf(t: TestApp, project: Key, acceptedIds: readonly string[]) {
  const { rows } = await t.db.sql.query('SELECT id FROM events WHERE project_id = $1 AND id = ANY($2)', [project.projectId, acceptedIds]);
  const stored = new Set(rows.map((row: { id: string }) => row.id));
  const letters = await allDeadLetters(t, project);
  const deadLettered = letters.reduce((sum, letter) => sum + letter.events, 0);
  return { stored, letters, deadLettered, listedIds: letters.flatMap((letter) => letter.eventIds as string[]) };
}

/**
 * Waits until the worker is idle and every accepted event is stored or in a dead letter, then returns how they ended;
 * fails naming the counts when some event stays neither.
 */
async function accountFor(t: TestApp, project: Key, acceptedIds: readonly string[], timeoutMs = 60_000) {
  const accounting = await eventually(
    async () => {
      const now = await accountingOf(t, project, acceptedIds);
      const isSettled = (await isWorkerIdle(t)) && now.stored.size + now.deadLettered === acceptedIds.length;
      if (!isSettled) throw new Error(`${acceptedIds.length} accepted, ${now.stored.size} stored, ${now.deadLettered} dead-lettered`);
      return now;
    },
    timeoutMs,
    100,
  );
  expect(accounting.listedIds.filter((id) => accounting.stored.has(id))).toEqual([]);
  return accounting;
}

async function post(t: TestApp, project: Key, events: unknown[]) {
  const response = await t.request('POST', '/v1/events', { body: { events }, key: project.apiKey });
  expect(response.status).toBe(202);
  return response.body as { ids: string[]; rejected: Array<{ index: number }> };
}

const TOOL_SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false };

describe('finding 3: healthy events are never dead-lettered because of other events in their batch', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function freshProjectWithTool(): Promise<Key> {
    const project = await t.createProject(`accounting-${randomUUID().slice(0, 8)}`);
    const registered = await t.request('PUT', '/v1/tools/get_weather', {
      body: { description: 'Weather for a city.', parameters: TOOL_SCHEMA },
      key: project.apiKey,
    });
    // a refusal says why (one CI run saw a 400 for this plain tool on a busy box, body not kept)
    expect({ status: registered.status < 300 ? 'registered' : registered.status, body: registered.body }).toMatchObject({
      status: 'registered',
    });
    return project;
  }

  const unknownArgument = (name: string) =>
    anErrorEvent('Extra inputs are not permitted', { tool: 'get_weather', arguments: { [name]: 'Paris' } });

  it('stores all 100 events when two unknown argument names share their first 499 characters (the probe)', async () => {
    const project = await freshProjectWithTool();
    const shared = 'a'.repeat(499);
    const events = [unknownArgument(`${shared}${'b'.repeat(101)}`), unknownArgument(`${shared}${'c'.repeat(101)}`)];
    for (let i = 0; i < 98; i++) events.push(anEvent());
    const { ids } = await post(t, project, events);
    expect(ids).toHaveLength(100);
    const { stored, letters } = await accountFor(t, project, ids);
    expect(letters).toEqual([]);
    expect(stored.size).toBe(100);
    const mistakes = await t.db.sql.query('SELECT argument_path, count FROM daily_mistake_rollups WHERE project_id = $1', [
      project.projectId,
    ]);
    expect(mistakes.rows).toEqual([{ argument_path: `/${shared}`, count: 2 }]);
  });

  it('stores every event when argument names of successful calls differ only inside a surrogate pair cut at 500', async () => {
    const project = await freshProjectWithTool();
    // '/' + 498 characters puts each astral character across the cut: Postgres stores both halves as U+FFFD
    const prefix = 'n'.repeat(498);
    const events = ['\u{1F600}', '\u{1D400}', '\u{10400}'].map((astral) => anEvent({ arguments: { [`${prefix}${astral}tail`]: 7 } }));
    for (let i = 0; i < 20; i++) events.push(anEvent());
    const { ids } = await post(t, project, events);
    const { stored, letters } = await accountFor(t, project, ids);
    expect(letters).toEqual([]);
    expect(stored.size).toBe(23);
    const ranges = await t.db.sql.query(
      'SELECT success_count FROM argument_value_ranges WHERE project_id = $1 AND length(argument_path) = 500',
      [project.projectId],
    );
    expect(ranges.rows).toEqual([{ success_count: '3' }]);
  });

  it('stores every event when unknown argument names of failed calls differ only inside a surrogate pair cut at 500', async () => {
    const project = await freshProjectWithTool();
    const prefix = 'u'.repeat(498);
    const events = ['\u{1F600}', '\u{1D400}'].map((astral) => unknownArgument(`${prefix}${astral}tail`));
    for (let i = 0; i < 20; i++) events.push(anEvent());
    const { ids } = await post(t, project, events);
    const { stored, letters } = await accountFor(t, project, ids);
    expect(letters).toEqual([]);
    expect(stored.size).toBe(22);
    const mistakes = await t.db.sql.query('SELECT count FROM daily_mistake_rollups WHERE project_id = $1', [project.projectId]);
    expect(mistakes.rows).toEqual([{ count: 2 }]);
  });

  it('stores or refuses by name every event whose tool names Postgres would store alike, and dead-letters none', async () => {
    const project = await freshProjectWithTool();
    const events = [anEvent({ tool: 'calc\uD800' }), anEvent({ tool: 'calc\uDC00' }), anEvent({ tool: 'calc\uFFFD' })];
    for (let i = 0; i < 30; i++) events.push(anEvent());
    const { ids, rejected } = await post(t, project, events);
    expect(ids.length + rejected.length).toBe(33);
    const { stored, letters } = await accountFor(t, project, ids);
    expect(letters).toEqual([]);
    expect(stored.size).toBe(ids.length);
  });

  it('stores 499 valid events when two report durationMs 1.7e308 in one tool-hour (the probe), naming any it refuses', async () => {
    const project = await freshProjectWithTool();
    const occurredAt = new Date(Date.now() - 60_000).toISOString();
    const events = [anEvent({ occurredAt, durationMs: 1.7e308 }), anEvent({ occurredAt, durationMs: 1.7e308 })];
    for (let i = 0; i < 499; i++) events.push(anEvent({ occurredAt }));
    const { ids, rejected } = await post(t, project, events);
    expect(ids.length + rejected.length).toBe(501);
    const { stored, letters } = await accountFor(t, project, ids);
    expect(letters).toEqual([]);
    expect(stored.size).toBe(ids.length);
    const rollup = await t.db.sql.query(
      'SELECT sum(calls)::int AS calls, bool_and(latency_sum_ms < 1e300) AS finite FROM hourly_rollups WHERE project_id = $1',
      [project.projectId],
    );
    expect(rollup.rows[0]).toEqual({ calls: ids.length, finite: true });
  });

  it('stores every valid event when huge durations of one tool-hour arrive in separate requests', async () => {
    const project = await freshProjectWithTool();
    const occurredAt = new Date(Date.now() - 60_000).toISOString();
    const accepted: string[] = [];
    for (const duration of [1.7e308, Number.MAX_VALUE, 1e308]) {
      const { ids } = await post(t, project, [
        anEvent({ occurredAt, durationMs: duration }),
        anEvent({ occurredAt }),
        anEvent({ occurredAt }),
      ]);
      accepted.push(...ids);
      // one batch at a time, so the sum in Postgres adds to a row an earlier batch wrote
      await accountFor(t, project, accepted);
    }
    const { stored, letters } = await accountFor(t, project, accepted);
    expect(letters).toEqual([]);
    expect(stored.size).toBe(accepted.length);
  });

  it('stores every valid event when durations that each fit sum past float8 in one tool-hour (2 x 1e308)', async () => {
    const project = await freshProjectWithTool();
    const occurredAt = new Date(Date.now() - 60_000).toISOString();
    const valid = Array.from({ length: 40 }, () => anEvent({ occurredAt }));
    const { ids, rejected } = await post(t, project, [
      anEvent({ occurredAt, durationMs: 1e308 }),
      ...valid,
      anEvent({ occurredAt, durationMs: 1e308 }),
    ]);
    expect(ids.length + rejected.length).toBe(42);
    const { stored, letters } = await accountFor(t, project, ids);
    expect(letters).toEqual([]);
    expect(stored.size).toBe(ids.length);
  });
});

describe('poison isolation by SQLSTATE class', () => {
  let t: TestApp;
  const CODES = [
    '21000',
    '22001',
    '22003',
    '22P02',
    '22008',
    '23505',
    '23502',
    '23503',
    '23001',
    '23514',
    'P0001',
    'P0004',
    '27000',
    'U0001',
  ];
  beforeAll(async () => {
    t = await startTestApp();
    // the fault: this test database refuses events whose id names a SQLSTATE, raising exactly that one
    await t.db.sql.query(`
      CREATE FUNCTION raise_by_id() RETURNS trigger AS $$
      BEGIN
        IF NEW.id LIKE 'raise-%' THEN
          RAISE EXCEPTION 'injected %', NEW.id USING ERRCODE = split_part(NEW.id, '-', 2);
        END IF;
        IF NEW.id LIKE 'transient-%' THEN
          RAISE EXCEPTION 'injected serialization failure' USING ERRCODE = '40001';
        END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql;
      CREATE TRIGGER raise_by_id BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION raise_by_id();`);
  });
  afterAll(() => t.close());

  it('dead-letters exactly the events the database refuses, whatever the class, and stores the rest', async () => {
    const project = await t.createProject('sqlstate-classes');
    const poison = CODES.map((code) => anEvent({ id: `raise-${code}-${randomUUID().slice(0, 8)}` }));
    const valid = Array.from({ length: 60 }, () => anEvent());
    const events = [...valid.slice(0, 30), ...poison, ...valid.slice(30)];
    const { ids } = await post(t, project, events);
    const { stored, letters, listedIds } = await accountFor(t, project, ids);
    expect(stored.size).toBe(60);
    expect(letters).toHaveLength(1);
    expect(letters[0].events).toBe(CODES.length);
    expect(listedIds.sort()).toEqual(poison.map((e) => e.id as string).sort());
    for (const event of poison) expect(letters[0].failedReason).toContain(`injected ${event.id}`);
  });

  it('retries a batch failing for a reason that is not its data, then dead-letters it whole after the last attempt', async () => {
    const project = await t.createProject('transient-class');
    const events = [anEvent({ id: `transient-${randomUUID()}` }), anEvent(), anEvent()];
    const { ids } = await post(t, project, events);
    const { stored, letters } = await accountFor(t, project, ids);
    expect(stored.size).toBe(0);
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({
      events: 3,
      attemptsMade: t.config.jobAttempts,
      failedReason: expect.stringContaining('serialization failure'),
    });
  });
});

describe('finding 2: a worker that dies on a job, again and again (built app, small heap)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ROLES: 'api' });
    // the fault: inserting an event whose id starts with sleepy- takes 30 s, long enough to kill the worker mid-job
    await t.db.sql.query(`
      CREATE FUNCTION sleep_on_sleepy() RETURNS trigger AS $$
      BEGIN
        IF NEW.id LIKE 'sleepy-%' THEN PERFORM pg_sleep(30); END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql;
      CREATE TRIGGER sleep_on_sleepy BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION sleep_on_sleepy();`);
  });
  afterAll(() => t.close());

  const MAX_STALLED_COUNT = 1;
  const workerEnv = () => ({
    DATABASE_URL: t.db.url,
    REDIS_URL: t.config.redisUrl,
    QUEUE_PREFIX: t.config.queuePrefix,
    ROLES: 'worker',
    MIGRATE_ON_START: 'false',
    WORKER_LOCK_DURATION_MS: '1000',
    WORKER_MAX_STALLED_COUNT: String(MAX_STALLED_COUNT),
    JOB_ATTEMPTS: '3',
  });

  const sleepingBackends = async () =>
    Number(
      (await t.db.sql.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'PgSleep'`))
        .rows[0].n,
    );
  // a killed worker's query runs on in Postgres and holds its uncommitted rows; end it as a crash would
  const endOrphanedQueries = () =>
    t.db.sql.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'`,
    );

  /** True once every accepted event is stored or dead-lettered; else throws saying how far it got. */
  async function isSettled(project: Key, acceptedIds: readonly string[]): Promise<true> {
    const { stored, deadLettered } = await accountingOf(t, project, acceptedIds);
    if ((await isWorkerIdle(t)) && stored.size + deadLettered === acceptedIds.length) return true;
    throw new Error(`${acceptedIds.length} accepted, ${stored.size} stored, ${deadLettered} dead-lettered`);
  }

  /** Runs workers one after the other; `shouldKill` says when to SIGKILL the running one. Returns the deaths. */
  /** How each worker of the last runWorkersUntilSettled that died by itself ended: its exit code and last output. */
  const deathLog: string[] = [];
  async function runWorkersUntilSettled(project: Key, acceptedIds: readonly string[], heapMb: number, shouldKill: () => Promise<boolean>) {
    let deaths = 0;
    deathLog.length = 0;
    for (let run = 0; run < 8; run++) {
      const worker: AppProcess = spawnApp(workerEnv(), [`--max-old-space-size=${heapMb}`]);
      let hasExited = false;
      void worker.exited.then(() => (hasExited = true));
      let outcome: 'died' | 'kill' | 'settled' | undefined;
      try {
        outcome = await eventually(
          async () => {
            if (hasExited) return 'died';
            if (await shouldKill()) return 'kill';
            return (await isSettled(project, acceptedIds)) && 'settled';
          },
          90_000,
          50,
        );
      } finally {
        worker.child.kill(outcome === 'settled' ? 'SIGTERM' : 'SIGKILL');
        await worker.exited;
      }
      if (outcome === 'settled') return deaths;
      // how each worker ended, for a failure's message: a death the test did not cause prints its last words
      if (outcome === 'died') deathLog.push(`worker ${run} died (exit ${await worker.exited}): ${worker.output().slice(-1500)}`);
      await endOrphanedQueries();
      deaths += 1;
    }
    throw new Error(`the events were not all stored or dead-lettered after ${deaths} worker deaths`);
  }

  it('dead-letters the batch a worker is killed on until the stall limit, and stores every other batch', async () => {
    const project = await t.createProject('crash-loop');
    const { ids: doomed } = await post(t, project, [
      anEvent({ id: `sleepy-${randomUUID()}` }),
      ...Array.from({ length: 9 }, () => anEvent()),
    ]);
    const { ids: healthy } = await post(
      t,
      project,
      Array.from({ length: 20 }, () => anEvent()),
    );

    // killed as soon as the doomed batch sleeps, whatever runs beside it (the first time, the healthy batch is written
    // in the same group); a job that stalled runs alone after that, so only the doomed one keeps dying
    const deaths = await runWorkersUntilSettled(project, [...doomed, ...healthy], 96, async () => (await sleepingBackends()) > 0);

    expect(deaths).toBe(MAX_STALLED_COUNT + 1);
    const { stored, letters } = await accountFor(t, project, [...doomed, ...healthy]);
    expect([...stored].sort()).toEqual([...healthy].sort());
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ events: 10, failedReason: 'job stalled more than allowable limit' });
    expect(letters[0].eventIds.sort()).toEqual([...doomed].sort());
  }, 240_000);

  it('stores a batch killed beside the doomed one, once, and dead-letters only the doomed one', async () => {
    const project = await t.createProject('crash-beside');
    const { ids: doomed } = await post(t, project, [anEvent({ id: `sleepy-${randomUUID()}` })]);
    const { ids: beside } = await post(
      t,
      project,
      Array.from({ length: 200 }, () => anEvent()),
    );

    // killed at once, whatever else runs: the other batch may die before or after its commit, each time
    await runWorkersUntilSettled(project, [...doomed, ...beside], 96, async () => (await sleepingBackends()) > 0);

    // the batch that died beside it runs alone once it stalled, so it is never dead-lettered with the doomed one
    const { stored, letters } = await accountFor(t, project, [...doomed, ...beside]);
    expect([...stored].sort()).toEqual([...beside].sort());
    expect(letters).toHaveLength(1);
    expect(letters[0].eventIds).toEqual(doomed);
  }, 240_000);

  it('ends with all 11 events stored or dead-lettered when a hostile schema is validated on a 64 MB heap (the probe)', async () => {
    const project = await t.createProject('hostile-schema');
    // 20 levels of $ref'd anyOf: 2^20 branches, 2,097,151 Ajv errors for {"x": 1} when nothing bounds it
    const $defs: Record<string, unknown> = { l20: { type: 'string' } };
    for (let level = 19; level >= 0; level--)
      $defs[`l${level}`] = { anyOf: [{ $ref: `#/$defs/l${level + 1}` }, { $ref: `#/$defs/l${level + 1}` }] };
    const parameters = { type: 'object', properties: { x: { $ref: '#/$defs/l0' } }, $defs };
    // a version that refuses such a schema at registration stores the events without it; either way none may vanish
    await t.request('PUT', '/v1/tools/hostile', {
      body: { description: 'A tool with a hostile schema.', parameters },
      key: project.apiKey,
    });
    const { ids } = await post(
      t,
      project,
      Array.from({ length: 11 }, (_, i) => anErrorEvent(`bad x ${i}`, { tool: 'hostile', arguments: { x: 1 } })),
    );
    expect(ids).toHaveLength(11);

    const deaths = await runWorkersUntilSettled(project, ids, 64, async () => false);

    // a job that kills its worker costs at most the stall limit + 1 deaths, then it is dead-lettered
    if (deaths > MAX_STALLED_COUNT + 1) {
      throw new Error(`${deaths} worker deaths, at most ${MAX_STALLED_COUNT + 1} expected; how they ended:\n${deathLog.join('\n')}`);
    }
    const { stored, deadLettered } = await accountFor(t, project, ids);
    expect(stored.size + deadLettered).toBe(11);
    console.info(`hostile schema on a 64 MB heap: ${deaths} worker deaths, ${stored.size} stored, ${deadLettered} dead-lettered`);
  }, 400_000);
});
