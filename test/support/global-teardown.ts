import { Client } from 'pg';
import { dropLeftoverDatabases } from './test-database';
import { ADMIN_DATABASE_URL, TEMPLATE_DATABASE } from './test-env';

/** Drops the databases of this run's files still there and the migrated template, so a run leaves none behind. */
export default async function globalTeardown() {
  await dropLeftoverDatabases();
  const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${TEMPLATE_DATABASE}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
