import { migrate, readMigrations } from '../../src/infra/prisma/migrate';
import { createEmptyDatabase, TestDatabase } from '../support/test-database';

describe('migration runner', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createEmptyDatabase();
  });
  afterAll(() => db.drop());

  it('applies every migration once and records it the way prisma migrate deploy does', async () => {
    const first = await migrate(db.url);
    expect(first.applied).toEqual(readMigrations().map((m) => m.name));

    const { rows } = await db.sql.query(
      'SELECT migration_name, checksum, finished_at, applied_steps_count, rolled_back_at FROM "_prisma_migrations" ORDER BY migration_name',
    );
    expect(rows.map((r) => r.migration_name)).toEqual(first.applied);
    for (const [i, migration] of readMigrations().entries()) {
      expect(rows[i].checksum).toBe(migration.checksum);
      expect(rows[i].checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(rows[i].finished_at).toBeInstanceOf(Date);
      expect(rows[i].applied_steps_count).toBe(1);
      expect(rows[i].rolled_back_at).toBeNull();
    }
  });

  it('is a no-op the second time, also when several replicas migrate at once', async () => {
    const results = await Promise.all([migrate(db.url), migrate(db.url), migrate(db.url)]);
    for (const result of results) {
      expect(result.applied).toEqual([]);
      expect(result.alreadyApplied).toBe(readMigrations().length);
    }
    const { rows } = await db.sql.query('SELECT count(*)::int AS n FROM "_prisma_migrations"');
    expect(rows[0].n).toBe(readMigrations().length);
  });
});

describe('migration 20261126000000_project_scoped_keys on a database with rows', () => {
  const MIGRATION = '20261126000000_project_scoped_keys';
  const A = '00000000-0000-0000-0000-00000000000a';
  const B = '00000000-0000-0000-0000-00000000000b';
  const TOOL_A = '10000000-0000-0000-0000-00000000000a';
  const TOOL_B = '10000000-0000-0000-0000-00000000000b';
  const RULE = '20000000-0000-0000-0000-000000000001';
  const DESTINATION = '30000000-0000-0000-0000-000000000001';
  const MISFILED_WARNING = '40000000-0000-0000-0000-0000000000ff';
  const CHANGED_TABLES = [
    'tools',
    'tool_versions',
    'tool_warnings',
    'error_groups',
    'recommendations',
    'job_runs',
    'alert_rules',
    'alert_incidents',
    'alert_destinations',
    'alert_deliveries',
  ];
  let db: TestDatabase;
  /** Each changed table's rows before the migration. */
  const before = new Map<string, Array<Record<string, unknown>>>();

  /** Every row of the table as JSON, in a stable order, without the columns named. */
  const rowsOf = async (table: string, without: string[] = []) =>
    (
      await db.sql.query<{ row: Record<string, unknown> }>(
        `SELECT to_jsonb(t) - $1::text[] AS row FROM "${table}" t ORDER BY to_jsonb(t)::text`,
        [without],
      )
    ).rows.map((r) => r.row);

  beforeAll(async () => {
    db = await createEmptyDatabase();
    for (const migration of readMigrations().filter((m) => m.name < MIGRATION)) await db.sql.query(migration.sql);
    // two projects with a tool of the same name; each changed table gets rows, tool_versions of both projects' tools
    await db.sql.query(`
      INSERT INTO projects (id, name) VALUES ('${A}', 'a'), ('${B}', 'b');
      INSERT INTO tools (id, project_id, name, description, parameters, version)
      VALUES ('${TOOL_A}', '${A}', 'factorial', 'Computes n!', '{"type":"object"}', 2),
             ('${TOOL_B}', '${B}', 'factorial', 'Computes n! in b', NULL, 1);
      INSERT INTO tool_versions (tool_id, version, base_description, description, parameters, warnings, warning_ids)
      VALUES ('${TOOL_A}', 1, 'Computes n!', 'Computes n!', '{"type":"object"}', '[]', '{}'),
             ('${TOOL_A}', 2, 'Computes n!', 'Computes n! Keep n below 20.', '{"type":"object"}',
              '[{"id":"40000000-0000-0000-0000-000000000001","kind":"learned_limit"}]', '{40000000-0000-0000-0000-000000000001}'),
             ('${TOOL_B}', 1, 'Computes n! in b', 'Computes n! in b', NULL, '[]', NULL);
      INSERT INTO tool_warnings (id, project_id, tool_id, kind, text, evidence, evidence_key, source, status)
      VALUES ('40000000-0000-0000-0000-000000000001', '${A}', '${TOOL_A}', 'learned_limit', 'Keep n below 20.',
              '{"count":7}', 'learned_limit:/n', 'auto', 'active'),
             ('40000000-0000-0000-0000-000000000002', '${B}', '${TOOL_B}', 'note', 'Integers only.', '{}', NULL, 'manual', 'active'),
             ('${MISFILED_WARNING}', '${B}', '${TOOL_A}', 'note', 'Filed under the wrong project.', '{}', 'note:x', 'manual', 'dismissed');
      INSERT INTO error_groups (id, project_id, fingerprint, tool, category, subtype, argument_path, message_template, count,
        first_seen, last_seen, sample_event_ids, status, intended_argument, array_for_scalar_count, min_offending_value)
      VALUES ('50000000-0000-0000-0000-000000000001', '${A}', repeat('f', 40), 'factorial', 'overflow', 'above_maximum', '/n',
        'n too large: <num>', 12, '2026-11-01T00:00:00Z', '2026-11-20T00:00:00Z', '{e-1,e-2}', 'regressed', NULL, 3, 21);
      INSERT INTO recommendations (id, project_id, tool, kind, evidence_key, text, evidence, confidence, status, warning_id,
        applied_version, applied_at, effect)
      VALUES ('60000000-0000-0000-0000-000000000001', '${A}', 'factorial', 'learned_limit', 'learned_limit:/n',
        'Keep n below 20.', '{"count":7}', 0.9, 'applied', '40000000-0000-0000-0000-000000000001', 2,
        '2026-11-10T00:00:00Z', '{"verdict":"helped"}');
      INSERT INTO job_runs (id, project_id, job, day, trigger, status, counts, finished_at)
      VALUES ('70000000-0000-0000-0000-000000000001', '${B}', 'nightly', '2026-11-20', 'schedule', 'succeeded',
        '{"tools":1}', '2026-11-21T00:01:00Z');
      INSERT INTO alert_rules (id, project_id, name, kind, tools, threshold, min_calls, window_hours, cooldown_minutes)
      VALUES ('${RULE}', '${A}', 'success rate', 'success_rate_below', '{factorial}', 90, 20, 1, 60);
      INSERT INTO alert_incidents (id, project_id, rule_id, subject, tool, status, summary, details, is_notified, opened_at,
        resolved_at)
      VALUES ('80000000-0000-0000-0000-000000000001', '${A}', '${RULE}', 'tool:factorial', 'factorial', 'resolved',
        'factorial at 80%', '{"rate":80}', true, '2026-11-20T10:00:00Z', '2026-11-20T11:00:00Z');
      INSERT INTO alert_destinations (id, project_id, name, kind, url, secret, failing_since)
      VALUES ('${DESTINATION}', '${B}', 'hook', 'webhook', 'https://example.com/hook', 'secret', '2026-11-20T09:00:00Z');
      INSERT INTO alert_deliveries (id, project_id, destination_id, notification_id, incident_id, event, attempt, outcome,
        status_code, latency_ms, error)
      VALUES ('90000000-0000-0000-0000-000000000001', '${B}', '${DESTINATION}', 'test-1', NULL, 'test', 1, 'failed', 500, 12,
        'answered 500');`);
    for (const table of CHANGED_TABLES) before.set(table, await rowsOf(table));
    await db.sql.query('BEGIN');
    await db.sql.query(readMigrations().find((m) => m.name === MIGRATION)!.sql);
    await db.sql.query('COMMIT');
  });
  afterAll(() => db.drop());

  it("keeps every row and value, gives each tool version its tool's project and a warning filed under another project its tool's", async () => {
    expect(CHANGED_TABLES.filter((table) => before.get(table)!.length === 0)).toEqual([]);
    for (const table of CHANGED_TABLES.filter((t) => t !== 'tool_versions' && t !== 'tool_warnings')) {
      expect({ table, rows: await rowsOf(table) }).toEqual({ table, rows: before.get(table) });
    }
    expect(await rowsOf('tool_versions', ['project_id'])).toEqual(before.get('tool_versions'));
    const { rows: versions } = await db.sql.query('SELECT project_id, tool_id, version FROM tool_versions ORDER BY tool_id, version');
    expect(versions).toEqual([
      { project_id: A, tool_id: TOOL_A, version: 1 },
      { project_id: A, tool_id: TOOL_A, version: 2 },
      { project_id: B, tool_id: TOOL_B, version: 1 },
    ]);
    const byId = (rows: Array<Record<string, unknown>>) => [...rows].sort((x, y) => String(x.id).localeCompare(String(y.id)));
    const warningsBefore = before.get('tool_warnings')!.map((row) => (row.id === MISFILED_WARNING ? { ...row, project_id: A } : row));
    expect(byId(await rowsOf('tool_warnings'))).toEqual(byId(warningsBefore));
  });

  it('keys every changed table by project_id first, with foreign keys that pair project_id', async () => {
    const { rows: keys } = await db.sql.query<{ table: string; columns: string[] }>(
      `
      SELECT c.relname AS table, array(SELECT a.attname FROM unnest(x.indkey) WITH ORDINALITY k(attnum, n)
        JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum ORDER BY k.n)::text[] AS columns
      FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid
      WHERE c.relname = ANY($1) AND (x.indisprimary OR x.indisunique) ORDER BY 1, 2`,
      [CHANGED_TABLES],
    );
    expect(new Set(keys.map((key) => key.table)).size).toBe(CHANGED_TABLES.length);
    expect(keys.filter((key) => key.columns[0] !== 'project_id')).toEqual([]);
    expect(keys.find((key) => key.table === 'tool_versions')!.columns).toEqual(['project_id', 'tool_id', 'version']);

    // a version or warning of a tool of another project is refused
    await expect(
      db.sql.query(
        `INSERT INTO tool_versions (project_id, tool_id, version, base_description, description, warnings)
         VALUES ('${B}', '${TOOL_A}', 3, 'x', 'x', '[]')`,
      ),
    ).rejects.toMatchObject({ code: '23503', constraint: 'tool_versions_project_id_tool_id_fkey' });
    await expect(
      db.sql.query(
        `INSERT INTO alert_incidents (project_id, rule_id, subject, status, summary, details, is_notified, opened_at)
         VALUES ('${B}', '${RULE}', 's', 'open', 's', '{}', false, now())`,
      ),
    ).rejects.toMatchObject({ code: '23503', constraint: 'alert_incidents_project_id_rule_id_fkey' });
    // one warning per tool and evidence key, as before
    await expect(
      db.sql.query(
        `INSERT INTO tool_warnings (project_id, tool_id, kind, text, evidence, evidence_key, source)
         VALUES ('${A}', '${TOOL_A}', 'learned_limit', 'again', '{}', 'learned_limit:/n', 'auto')`,
      ),
    ).rejects.toMatchObject({ code: '23505', constraint: 'tool_warnings_project_id_tool_id_evidence_key_key' });
  });

  it('still cascades a deleted tool, rule or destination to its versions, warnings, incidents and deliveries', async () => {
    await db.sql.query(`DELETE FROM tools WHERE project_id = '${A}' AND id = '${TOOL_A}'`);
    await db.sql.query(`DELETE FROM alert_rules WHERE project_id = '${A}' AND id = '${RULE}'`);
    await db.sql.query(`DELETE FROM alert_destinations WHERE project_id = '${B}' AND id = '${DESTINATION}'`);
    const { rows } = await db.sql.query(`
      SELECT (SELECT array_agg(tool_id::text ORDER BY tool_id) FROM tool_versions) AS versions,
             (SELECT array_agg(tool_id::text ORDER BY tool_id) FROM tool_warnings) AS warnings,
             (SELECT count(*)::int FROM alert_incidents) AS incidents,
             (SELECT count(*)::int FROM alert_deliveries) AS deliveries`);
    expect(rows[0]).toEqual({ versions: [TOOL_B], warnings: [TOOL_B], incidents: 0, deliveries: 0 });
  });
});
