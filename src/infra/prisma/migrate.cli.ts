import { loadConfig, redactUrl } from '../../config/config';
import { migrate } from './migrate';

async function main() {
  const config = loadConfig(process.env);
  const result = await migrate(config.databaseUrl, (message) => console.log(message));
  console.log(`database ${redactUrl(config.databaseUrl)}: ${result.applied.length} applied, ${result.alreadyApplied} already applied`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
