import { aggregateBatch } from '../../src/categorize/batch-aggregates';
import { CategorizeRepository } from '../../src/categorize/categorize.repository';
import { toRow } from '../../src/categorize/categorize.service';
import { StoredEventRow } from '../../src/categorize/stored-event';
import { AcceptedEvent } from '../../src/infra/queue/queue.payloads';
import { anErrorEvent, anEvent } from '../factories/event.factory';
import { MediumModule, startMediumModule } from '../support/medium-module';

const OCCURRED_AT = '2026-05-01T10:20:00.000Z';
const HOUR = '2026-05-01T10:00:00.000Z';
const WRITTEN_TABLES = [
  'events',
  'error_groups',
  'hourly_rollups',
  'hourly_error_rollups',
  'daily_version_rollups',
  'daily_mistake_rollups',
  'argument_value_ranges',
];

/**
 * The worker's batch write in process: the real repository and Prisma service against this file's cloned database,
 * with the rows the worker builds (toRow: the real diagnosis) and its aggregates.
 */
describe('CategorizeRepository.writeBatch', () => {
  let medium: MediumModule;
  let repository: CategorizeRepository;
  /** A project of its own per test, so counts are this test's alone. */
  const aProject = () => medium.aProject();

  beforeAll(async () => {
    medium = await startMediumModule([CategorizeRepository]);
    repository = medium.module.get(CategorizeRepository);
  });
  afterAll(() => medium?.close());

  function rowsOf(projectId: string, events: Array<Record<string, unknown>>): StoredEventRow[] {
    const receivedAt = new Date();
    return events.map((event) =>
      toRow(projectId, { occurredAt: OCCURRED_AT, ...event } as unknown as AcceptedEvent, receivedAt, undefined),
    );
  }

  const write = (projectId: string, rows: readonly StoredEventRow[]) => repository.writeBatch(projectId, rows, aggregateBatch);

  async function tableRows(table: string, projectId: string, columns: string): Promise<Array<Record<string, unknown>>> {
    const { rows } = await medium.db.sql.query(`SELECT ${columns} FROM ${table} WHERE project_id = $1 ORDER BY 1, 2`, [projectId]);
    return rows;
  }

  const weatherBatch = (projectId: string) =>
    rowsOf(projectId, [
      anEvent({ id: 'ok-1', durationMs: 3, arguments: { city: 'Paris', days: 3 } }),
      anEvent({ id: 'ok-2', durationMs: 7000, arguments: { city: 'Oslo', days: 10 }, descriptionVersion: 2 }),
      anErrorEvent('Request timed out after 30000 ms', { id: 'err-1', durationMs: 30000 }),
      anErrorEvent('Request timed out after 25000 ms', { id: 'err-2', durationMs: undefined }),
    ]);

  it('stores the events of a batch with their diagnosis and returns how many were new', async () => {
    const projectId = await aProject();
    expect(await write(projectId, weatherBatch(projectId))).toBe(4);
    const events = await tableRows('events', projectId, 'id, status, category, error_group_id IS NOT NULL AS has_group');
    expect(events).toEqual([
      { id: 'err-1', status: 'error', category: 'timeout', has_group: true },
      { id: 'err-2', status: 'error', category: 'timeout', has_group: true },
      { id: 'ok-1', status: 'success', category: null, has_group: false },
      { id: 'ok-2', status: 'success', category: null, has_group: false },
    ]);
    expect(await repository.findStoredEventIds(projectId, ['ok-1', 'err-2', 'never-sent'])).toEqual(new Set(['ok-1', 'err-2']));
  });

  it('stores text and JSON exactly as sent, whatever COPY would read specially in them', async () => {
    const projectId = await aProject();
    // each character COPY's text format treats specially, its NULL marker and end-of-data marker as whole values,
    // and text past ASCII
    const tricky = ['back\\slash', 'tab\there', 'new\nline', 'carriage\rreturn', '\\N', '\\.', 'quote " and \' ', 'héllo ✓ 🎉', ''];
    const events = tricky.map((text, i) =>
      anErrorEvent(text, {
        id: `tricky-${i}-${text}`,
        tool: `tool ${text}`,
        agent: text,
        arguments: { [text]: text, nested: [text, { deeper: `${text}\\${text}` }] },
        metadata: { note: text },
        durationMs: i + 0.25,
      }),
    );
    expect(await write(projectId, rowsOf(projectId, events))).toBe(tricky.length);
    const { rows } = await medium.db.sql.query(
      `SELECT id, tool, agent, error_message, arguments, metadata, duration_ms FROM events WHERE project_id = $1 ORDER BY duration_ms`,
      [projectId],
    );
    expect(rows).toEqual(
      tricky.map((text, i) => ({
        id: `tricky-${i}-${text}`,
        tool: `tool ${text}`,
        agent: text,
        error_message: text,
        arguments: { [text]: text, nested: [text, { deeper: `${text}\\${text}` }] },
        metadata: { note: text },
        duration_ms: i + 0.25,
      })),
    );
  });

  it('stores a lone surrogate as U+FFFD and a non-finite duration as float8 reads it', async () => {
    const projectId = await aProject();
    const rows = rowsOf(projectId, [anEvent({ id: 'lone', agent: 'a\uD800b', prompt: '\uDC00' }), anEvent({ id: 'inf' })]);
    rows[1].durationMs = Infinity;
    expect(await write(projectId, rows)).toBe(2);
    const stored = await tableRows('events', projectId, `id, agent, prompt, duration_ms::text AS duration`);
    expect(stored).toEqual([
      { id: 'inf', agent: null, prompt: null, duration: 'Infinity' },
      { id: 'lone', agent: 'a\uFFFDb', prompt: '\uFFFD', duration: '12.5' },
    ]);
  });

  it('folds the batch into one error group per fingerprint and into the hourly, daily and range rollups', async () => {
    const projectId = await aProject();
    await write(projectId, weatherBatch(projectId));
    expect(await tableRows('error_groups', projectId, 'tool, category, count, sample_event_ids, first_seen, status')).toEqual([
      {
        tool: 'get_weather',
        category: 'timeout',
        count: '2',
        sample_event_ids: ['err-1', 'err-2'],
        first_seen: new Date(OCCURRED_AT),
        status: 'open',
      },
    ]);
    expect(await tableRows('hourly_rollups', projectId, 'tool, hour, calls, errors, latency_count, latency_sum_ms')).toEqual([
      { tool: 'get_weather', hour: new Date(HOUR), calls: 4, errors: 2, latency_count: 3, latency_sum_ms: 37003 },
    ]);
    expect(await tableRows('hourly_error_rollups', projectId, 'tool, category, subtype, count')).toEqual([
      { tool: 'get_weather', category: 'timeout', subtype: '', count: 2 },
    ]);
    expect(await tableRows('daily_version_rollups', projectId, 'description_version, calls, errors')).toEqual([
      { description_version: 0, calls: 3, errors: 2 },
      { description_version: 2, calls: 1, errors: 0 },
    ]);
    expect(await tableRows('daily_mistake_rollups', projectId, 'description_version, category, count')).toEqual([
      { description_version: 0, category: 'timeout', count: 2 },
    ]);
    expect(await tableRows('argument_value_ranges', projectId, 'argument_path, success_count, min_value, max_value')).toEqual([
      { argument_path: '/days', success_count: '2', min_value: 3, max_value: 10 },
    ]);
  });

  it('changes nothing when the same batch is written again (a retried job)', async () => {
    const projectId = await aProject();
    await write(projectId, weatherBatch(projectId));
    const snapshot = await everyRowOf(projectId);
    expect(await write(projectId, weatherBatch(projectId))).toBe(0);
    expect(await everyRowOf(projectId)).toEqual(snapshot);
  });

  it('counts only the new events of a batch that overlaps one already written', async () => {
    const projectId = await aProject();
    await write(projectId, weatherBatch(projectId));
    const overlapping = rowsOf(projectId, [
      anErrorEvent('Request timed out after 1000 ms', { id: 'err-2' }),
      anErrorEvent('Request timed out after 2000 ms', { id: 'err-3' }),
    ]);
    expect(await write(projectId, overlapping)).toBe(1);
    expect(await tableRows('error_groups', projectId, 'count, sample_event_ids')).toEqual([
      { count: '3', sample_event_ids: ['err-1', 'err-2', 'err-3'] },
    ]);
    expect(await tableRows('hourly_rollups', projectId, 'calls, errors')).toEqual([{ calls: 5, errors: 3 }]);
  });

  it('reopens a group a person resolved as regressed when it occurs again', async () => {
    const projectId = await aProject();
    await write(projectId, weatherBatch(projectId));
    await medium.db.sql.query(`UPDATE error_groups SET status = 'resolved' WHERE project_id = $1`, [projectId]);
    await write(projectId, rowsOf(projectId, [anErrorEvent('Request timed out after 5 ms', { id: 'err-again' })]));
    expect(await tableRows('error_groups', projectId, 'status, count')).toEqual([{ status: 'regressed', count: '3' }]);
  });

  it('stores a batch of 5,000 events: the bind parameters of a statement do not grow with its rows', async () => {
    const projectId = await aProject();
    const events = Array.from({ length: 5_000 }, (_, i) =>
      i % 2 === 0
        ? anEvent({ id: `big-${i}`, tool: `tool-${i % 50}` })
        : anErrorEvent(`failure ${i}`, { id: `big-${i}`, tool: `tool-${i % 50}` }),
    );
    expect(await write(projectId, rowsOf(projectId, events))).toBe(5_000);
    const { rows } = await medium.db.sql.query<{ calls: number }>(
      'SELECT sum(calls)::int AS calls FROM hourly_rollups WHERE project_id = $1',
      [projectId],
    );
    expect(rows[0].calls).toBe(5_000);
  });

  /** Every row of the project in the tables the batch write maintains. */
  async function everyRowOf(projectId: string) {
    const snapshot: Record<string, unknown> = {};
    for (const table of WRITTEN_TABLES) {
      snapshot[table] = (await medium.db.sql.query(`SELECT * FROM ${table} WHERE project_id = $1 ORDER BY 2, 3`, [projectId])).rows;
    }
    return snapshot;
  }
});
