import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { ADMIN_DATABASE_URL, TEMPLATE_DATABASE, databaseUrl } from './test-env';

export interface TestDatabase {
  name: string;
  url: string;
  /** A connected client for assertions on what landed. */
  sql: Client;
  drop(): Promise<void>;
}

/** A database of this test file's own, cloned from the migrated template, dropped at the end. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `${TEMPLATE_DATABASE.replace(/_template$/, '')}_${randomBytes(5).toString('hex')}`;
  await withAdmin((admin) => admin.query(`CREATE DATABASE "${name}" TEMPLATE "${TEMPLATE_DATABASE}"`));
  const url = databaseUrl(name);
  const sql = new Client({ connectionString: url });
  await sql.connect();
  return {
    name,
    url,
    sql,
    async drop() {
      await sql.end().catch(() => undefined);
      await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

/** An empty database (no migrations), for testing the migration runner itself. */
export async function createEmptyDatabase(): Promise<TestDatabase> {
  const name = `toolcoach_empty_${randomBytes(5).toString('hex')}`;
  await withAdmin((admin) => admin.query(`CREATE DATABASE "${name}"`));
  const url = databaseUrl(name);
  const sql = new Client({ connectionString: url });
  await sql.connect();
  return {
    name,
    url,
    sql,
    async drop() {
      await sql.end().catch(() => undefined);
      await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
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
