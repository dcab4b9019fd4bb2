import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { Job, UnrecoverableError, Worker } from 'bullmq';
import { Logger } from 'pino';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { ROOT_LOGGER } from '../logging/logging.module';
import { createWorkerConnection } from '../redis/redis-connections';
import { JOB_FAILED_LISTENER, JOB_HANDLER, JobFailedListenerMethod, JobHandlerMethod } from './job-handler';
import { FoundMethod, mapJobHandlers, QueueHandlers } from './job-handler-map';
import { JOBS, payloadOf } from './queue.jobs';
import { JobName, QueueName } from './queue.names';
import { QUEUE_WORKERS, WorkerSettings } from './queue.workers';
import { JobRun, StalledJobIsolation } from './stalled-job-isolation';

interface RunningWorker {
  /** Waits for in-flight jobs (up to `timeoutMs`, then forces), and closes the connection. */
  close(timeoutMs: number): Promise<void>;
}

type Handler = JobHandlerMethod<JobName>;

const FORCED_CLOSE_TIMEOUT_MS = 2000;

/**
 * The queue workers of this process, started from the job handlers its providers declare (@JobHandler): one BullMQ
 * worker per queue that has handlers, with that queue's settings (queue.workers.ts), dispatching each job by its name
 * with its payload checked against its schema. The map is built when modules initialise, so a job without a handler
 * (or with two) fails the boot instead of the job; workers start once every provider is ready, and close together.
 */
@Injectable()
export class QueueWorkers implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger: Logger;
  private handlers = new Map<QueueName, QueueHandlers<Handler, JobFailedListenerMethod>>();
  private readonly running: RunningWorker[] = [];
  private closing?: Promise<void>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ROOT_LOGGER) rootLogger: Logger,
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {
    this.logger = rootLogger.child({ context: 'QueueWorkers' });
  }

  onModuleInit() {
    this.handlers = mapJobHandlers(
      JOBS,
      this.findMethods<Handler>(JOB_HANDLER),
      this.findMethods<JobFailedListenerMethod>(JOB_FAILED_LISTENER),
    );
  }

  onApplicationBootstrap() {
    for (const [queue, handlers] of this.handlers) {
      this.start(queue, handlers, QUEUE_WORKERS[queue as keyof typeof QUEUE_WORKERS](this.config));
      this.logger.info({ queue, jobs: [...handlers.handlers.keys()] }, 'queue worker started');
    }
  }

  /** The jobs this process runs, by queue (for logs and tests). */
  handledJobs(): Map<QueueName, JobName[]> {
    return new Map([...this.handlers].map(([queue, { handlers }]) => [queue, [...handlers.keys()]]));
  }

  private findMethods<F>(metadataKey: string): Array<FoundMethod<F>> {
    const found: Array<FoundMethod<F>> = [];
    for (const wrapper of this.discovery.getProviders()) {
      const instance: unknown = wrapper.instance;
      // factory and value providers have no class of their own to declare handlers on
      if (!wrapper.isDependencyTreeStatic() || !instance || typeof instance !== 'object') continue;
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const target = (instance as Record<string, unknown>)[method] as (...args: never[]) => unknown;
        const jobName = this.reflector.get<JobName | undefined>(metadataKey, target);
        if (jobName === undefined) continue;
        found.push({ jobName, where: `${instance.constructor.name}.${method}`, call: target.bind(instance) as F });
      }
    }
    return found;
  }

  /**
   * A BullMQ worker on its own blocking connection, with the app's queue prefix and errors logged, not thrown. A job
   * that stalled before runs alone (StalledJobIsolation); its handler is told so.
   */
  private start(
    queue: QueueName,
    { handlers, failedListeners }: QueueHandlers<Handler, JobFailedListenerMethod>,
    settings: WorkerSettings,
  ) {
    const logger = this.logger.child({ queue });
    const connection = createWorkerConnection(this.config.redis);
    connection.on('error', (error) => logger.warn({ err: error.message }, 'worker redis connection error'));
    const isolation = new StalledJobIsolation<unknown>(() => worker, logger);
    const process = (job: Job<unknown>, run: JobRun) => {
      const handler = handlers.get(job.name as JobName);
      // a job of a name this version does not know can never run here
      if (!handler) throw new UnrecoverableError(`unknown job name ${job.name}`);
      return handler(payloadOf(job.name as JobName, job), job, run);
    };
    const worker: Worker<unknown> = new Worker<unknown>(queue, (job, token) => isolation.run(job, token, process), {
      ...settings,
      connection,
      prefix: this.config.queueKeyPrefix,
    });
    worker.on('error', (error) => logger.error({ err: error.message }, 'worker error'));
    // also emitted for attempts that will be retried; the listener decides what a failure means
    // (a failure BullMQ reports without its job is left to the listeners' own sweeps)
    worker.on('failed', (job, error) => job && failedListeners.get(job.name as JobName)?.(job, error));
    this.running.push({
      async close(timeoutMs: number) {
        if (!(await settlesWithin(worker.close(), timeoutMs))) {
          logger.warn('in-flight jobs did not finish in time; another worker will retry them');
          // BullMQ's forced close can itself wait forever on a Cluster connection that went through CLUSTERDOWN
          if (!(await settlesWithin(worker.close(true), FORCED_CLOSE_TIMEOUT_MS))) {
            logger.warn('worker did not close; dropping its connections');
            await settlesWithin(worker.disconnect(), FORCED_CLOSE_TIMEOUT_MS);
          }
        }
        connection.disconnect();
      },
    });
  }

  /** Lets in-flight jobs of every worker finish at once (each up to SHUTDOWN_TIMEOUT_MS, then forced). */
  beforeApplicationShutdown(): Promise<void> {
    this.closing ??= Promise.all(this.running.map((worker) => worker.close(this.config.shutdownTimeoutMs))).then(() => undefined);
    return this.closing;
  }
}

/** True when `promise` settled within `timeoutMs`. */
function settlesWithin(promise: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  return Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref()),
  ]);
}
