import { Client } from 'pg';
import { migrate } from '../../src/infra/prisma/migrate';
import { ADMIN_DATABASE_URL, TEMPLATE_DATABASE, databaseUrl } from './test-env';

/** Builds a migrated template database once per run; every test file clones its own database from it. */
export default async function globalSetup() {
  const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${TEMPLATE_DATABASE}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${TEMPLATE_DATABASE}"`);
    // its migrations' commits need not wait for the disk either (see createTestDatabase); clones do not inherit this
    await admin.query(`ALTER DATABASE "${TEMPLATE_DATABASE}" SET synchronous_commit = off`);
  } finally {
    await admin.end();
  }
  await migrate(databaseUrl(TEMPLATE_DATABASE));
}
