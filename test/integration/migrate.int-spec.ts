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
