import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import { Logger } from 'pino';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { ROOT_LOGGER } from '../logging/logging.module';
import { createProducerConnection, createWorkerConnection, RedisConnection } from '../redis/redis-connections';
import { JOB_FAILED_LISTENER, JOB_HANDLER, JobFailedListenerMethod, JobHandlerMethod } from './job-handler';
import { FoundMethod, mapJobHandlers, QueueHandlers } from './job-handler-map';
import { JOBS, payloadOf } from './queue.jobs';
import { JobName, QueueName } from './queue.names';
import { QUEUE_WORKERS, WorkerSettings } from './queue.workers';
import { JobRun, StalledJobIsolation } from './stalled-job-isolation';
import { isStuck, trackProgress, WATCHDOG_INTERVAL_MS, WorkerProgress } from './worker-watchdog';

interface RunningWorker {
  /** Waits for in-flight jobs (up to `timeoutMs`, then forces), and closes the connection. */
  close(timeoutMs: number): Promise<void>;
  progress: WorkerProgress;
  worker: Worker<unknown>;
}

type Handler = JobHandlerMethod<JobName>;

/** The watchdog's view of a queue's backlog, on a connection of its own (a connection handed to a Queue is ours to close). */
interface BacklogReader {
  queue: Queue;
  connection: RedisConnection;
}

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
  private readonly running = new Map<QueueName, RunningWorker>();
  private closing?: Promise<void>;
  private watchdog?: { timer: NodeJS.Timeout; queues: Map<QueueName, BacklogReader>; isChecking: boolean };

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
      this.start(queue);
      this.logger.info({ queue, jobs: [...handlers.handlers.keys()] }, 'queue worker started');
    }
    if (this.config.workerStuckAfterMs > 0 && this.handlers.size > 0) {
      const timer = setInterval(() => void this.restartStuckWorkers(), WATCHDOG_INTERVAL_MS);
      timer.unref();
      this.watchdog = { timer, queues: new Map(), isChecking: false };
    }
  }

  /**
   * Closes and starts again each worker that is stuck (worker-watchdog.ts): jobs wait in its queue, unpaused, and it has
   * run none for WORKER_STUCK_AFTER_MS. A backlog that cannot be read (Redis down) is no reason: the next check sees.
   */
  private async restartStuckWorkers(): Promise<void> {
    const watchdog = this.watchdog;
    if (!watchdog || watchdog.isChecking || this.closing) return;
    watchdog.isChecking = true;
    try {
      for (const [queue, running] of this.running) {
        const backlog = await this.backlogOf(watchdog.queues, queue).catch(() => null);
        if (!backlog || !isStuck(running.progress, backlog, Date.now(), this.config.workerStuckAfterMs) || this.closing) continue;
        this.logger.warn(
          { queue, waiting: backlog.waiting, idleMs: Date.now() - running.progress.lastProgressAt },
          'queue worker took no job while jobs waited; starting it again on a new connection',
        );
        await running.close(FORCED_CLOSE_TIMEOUT_MS);
        if (this.closing) return;
        this.start(queue);
      }
    } finally {
      watchdog.isChecking = false;
    }
  }

  private async backlogOf(queues: Map<QueueName, BacklogReader>, name: QueueName): Promise<{ waiting: number; isPaused: boolean }> {
    let reader = queues.get(name);
    if (!reader) {
      const connection = createProducerConnection(this.config.redis);
      connection.on('error', () => undefined);
      const queue = new Queue(name, { connection, prefix: this.config.queueKeyPrefix });
      queue.on('error', () => undefined);
      reader = { queue, connection };
      queues.set(name, reader);
    }
    const { queue } = reader;
    const [counts, isPaused] = await Promise.all([queue.getJobCounts('wait', 'prioritized'), queue.isPaused()]);
    return { waiting: (counts.wait ?? 0) + (counts.prioritized ?? 0), isPaused };
  }

  /** The BullMQ worker running a queue's jobs now (for diagnostics and tests): the watchdog may replace it. */
  workerFor(queue: QueueName): Worker<unknown> | undefined {
    return this.running.get(queue)?.worker;
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
   * that stalled before runs alone (StalledJobIsolation); its handler is told so. At boot and when the watchdog starts
   * a stuck queue's worker again.
   */
  private start(queue: QueueName) {
    const { handlers, failedListeners } = this.handlers.get(queue)!;
    const settings: WorkerSettings = QUEUE_WORKERS[queue as keyof typeof QUEUE_WORKERS](this.config);
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
    this.running.set(queue, {
      worker,
      progress: trackProgress(worker),
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
    if (this.watchdog) clearInterval(this.watchdog.timer);
    const readers = [...(this.watchdog?.queues.values() ?? [])];
    this.closing ??= Promise.all([
      ...[...this.running.values()].map((worker) => worker.close(this.config.shutdownTimeoutMs)),
      ...readers.map(({ queue }) => settlesWithin(queue.close(), FORCED_CLOSE_TIMEOUT_MS)),
    ]).then(() => {
      // a connection handed to a Queue is the caller's to close
      for (const { connection } of readers) connection.disconnect();
    });
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
