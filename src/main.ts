import 'reflect-metadata';
import { createApp } from './app.factory';
import { AppConfig, ConfigError, loadConfig } from './config/config';
import { migrate } from './infra/prisma/migrate';
import { Logger } from 'pino';
import { createRootLogger } from './infra/logging/logger';
import { busyPortMessage, describeBusyPort, findUnreachableServices } from './infra/startup-checks';
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

  const problems = await findUnreachableServices(config);
  const busyPort = config.roles.has('api') ? await describeBusyPort(config.host, config.port) : null;
  if (busyPort) problems.push(busyPort);
  if (problems.length > 0) {
    for (const message of problems) console.error(message);
    process.exit(1);
  }
  if (config.migrateOnStart) {
    const result = await migrate(config.databaseUrl, (message) => logger.debug(message));
    logger.info({ applied: result.applied, alreadyApplied: result.alreadyApplied }, 'database migrated');
  }

  const app = await createApp(config, logger);
  closeGracefullyOn(['SIGTERM', 'SIGINT'], app, logger);
  if (!config.isProduction) await app.get(ProjectService).ensureDevProject(config.devKey);
  if (!config.roles.has('api')) {
    await app.init();
    logger.info({ roles: [...config.roles] }, 'toolcoach started without the api role');
    return;
  }
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    console.error(busyPortMessage(config.port));
    await app.close().catch(() => undefined);
    process.exit(1);
  }
  logReady(config, logger);
}

/** The last start-up line: where to go next, so a newcomer never scrolls back for the URL or the key. */
function logReady(config: AppConfig, logger: Logger) {
  const base = `http://${['0.0.0.0', '::'].includes(config.host) ? 'localhost' : config.host}:${config.port}`;
  const urls = { dashboard: `${base}/dashboard`, docs: `${base}/docs` };
  const devKey = config.isProduction ? '' : `; development key: Authorization: Bearer ${config.devKey} (project default)`;
  logger.info(
    { ...urls, roles: [...config.roles], ...(config.isProduction ? {} : { devKey: config.devKey }) },
    `toolcoach ready on ${base}: dashboard ${urls.dashboard}, API docs ${urls.docs}${devKey}`,
  );
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
