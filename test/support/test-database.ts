import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { ADMIN_DATABASE_URL, CLONE_PREFIX, TEMPLATE_DATABASE, databaseUrl } from './test-env';

export interface TestDatabase {
  name: string;
  url: string;
  /** A connected client for assertions on what landed. */
  sql: Client;
  /** Closes `sql` and drops the database in the background (globalTeardown drops what is left when the run ends). */
  drop(): Promise<void>;
}

/** A database of this test file's own, cloned from the migrated template, dropped at the end. */
export async function createTestDatabase(): Promise<TestDatabase> {
  return openDatabase(`${CLONE_PREFIX}${randomBytes(5).toString('hex')}`, `TEMPLATE "${TEMPLATE_DATABASE}"`);
}

/** An empty database (no migrations), for testing the migration runner itself. */
export async function createEmptyDatabase(): Promise<TestDatabase> {
  return openDatabase(`${CLONE_PREFIX}empty_${randomBytes(5).toString('hex')}`, '');
}

async function openDatabase(name: string, template: string): Promise<TestDatabase> {
  await withAdmin(async (admin) => {
    await admin.query(`CREATE DATABASE "${name}" ${template}`);
    // a test's commits need not wait for the WAL to reach the disk (~4 ms each on this box, 0.4 ms without): only a
    // crash of the shared server could lose them, and no test crashes it (the tests that stop a Postgres start their own)
    await admin.query(`ALTER DATABASE "${name}" SET synchronous_commit = off`);
  });
  const url = databaseUrl(name);
  const sql = new Client({ connectionString: url });
  await sql.connect();
  return {
    name,
    url,
    sql,
    async drop() {
      await sql.end().catch(() => undefined);
      // DROP DATABASE waits for a checkpoint (1-3 s here, all of it waiting): the next test file need not wait with it
      void withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).catch(() => undefined);
    },
  };
}

/** Drops every database this run's files created that is still there (a background drop cut short when Jest ended). */
export async function dropLeftoverDatabases(): Promise<void> {
  const { rows } = await withAdmin((admin) =>
    admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1) AND datname <> $2', [
      CLONE_PREFIX,
      TEMPLATE_DATABASE,
    ]),
  );
  // at once: concurrent drops share their checkpoints
  await Promise.all(
    rows
      .filter(({ datname }) => /^(empty_)?[0-9a-f]{10}$/.test(datname.slice(CLONE_PREFIX.length)))
      .map(({ datname }) => withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`)).catch(() => undefined)),
  );
}

async function withAdmin<T>(run: (admin: Client) => Promise<T>): Promise<T> {
  const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    return await run(admin);
  } finally {
    await admin.end();
  }
}
