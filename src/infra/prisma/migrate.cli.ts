import { loadConfig, redactUrl } from '../../config/config';
import { migrate } from './migrate';

const USAGE = `usage: npm run migrate     (after npm run build)
applies the pending migrations of prisma/migrations to the database of DATABASE_URL, which must exist (npm start
creates it), and records them in _prisma_migrations as prisma migrate deploy does; npm start migrates too unless
MIGRATE_ON_START=false`;

async function main() {
  if (process.argv.slice(2).some((arg) => arg === '--help' || arg === '-h')) {
    console.log(USAGE);
    return;
  }
  const config = loadConfig(process.env);
  const result = await migrate(config.databaseUrl, (message) => console.log(message));
  console.log(`database ${redactUrl(config.databaseUrl)}: ${result.applied.length} applied, ${result.alreadyApplied} already applied`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
