import 'reflect-metadata';
import { createApp } from './app.factory';
import { ConfigError, loadConfig } from './config/config';
import { migrate } from './infra/prisma/migrate';
import { Logger } from 'pino';
import { createRootLogger } from './infra/logging/logger';
import { findUnreachableServices } from './infra/startup-checks';
import { ProjectService } from './tenancy/project.service';

async function main() {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
  const logger = createRootLogger(config.logLevel);

  const unreachable = await findUnreachableServices(config);
  if (unreachable.length > 0) {
    for (const message of unreachable) console.error(message);
    process.exit(1);
  }
  if (config.migrateOnStart) {
    const result = await migrate(config.databaseUrl, (message) => logger.info(message));
    logger.info({ applied: result.applied.length, alreadyApplied: result.alreadyApplied }, 'database migrated');
  }

  const app = await createApp(config, logger);
  closeGracefullyOn(['SIGTERM', 'SIGINT'], app, logger);
  if (!config.isProduction) {
    await app.get(ProjectService).ensureDevProject(config.devKey);
    logger.info({ project: 'default', apiKey: config.devKey }, 'development project ready; use this key as Bearer token');
  }
  if (config.roles.has('api')) {
    await app.listen({ port: config.port, host: config.host });
    logger.info({ port: config.port, roles: [...config.roles] }, `toolcoach listening on http://localhost:${config.port}`);
  } else {
    await app.init();
    logger.info({ roles: [...config.roles] }, 'toolcoach started without the api role');
  }
}

/**
 * Stops taking requests, lets in-flight ones and in-flight batches finish (app.close runs every shutdown hook), then
 * exits 0. A second signal exits at once.
 */
function closeGracefullyOn(signals: NodeJS.Signals[], app: { close(): Promise<void> }, logger: Logger) {
  let isClosing = false;
  for (const signal of signals) {
    process.on(signal, () => {
      if (isClosing) process.exit(1);
      isClosing = true;
      logger.info({ signal }, 'shutting down');
      app.close().then(
        () => process.exit(0),
        (error) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
}

main().catch((error) => {
  console.error('toolcoach failed to start:', error instanceof Error ? error.stack : error);
  process.exit(1);
});
