import { Client } from 'pg';
import { ADMIN_DATABASE_URL, TEMPLATE_DATABASE } from './test-env';

/** Drops the migrated template globalSetup built, so a test run leaves no database behind. */
export default async function globalTeardown() {
  const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${TEMPLATE_DATABASE}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
