import { Inject, Injectable } from '@nestjs/common';
import { Job, Worker, WorkerOptions } from 'bullmq';
import { Logger } from 'pino';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { createWorkerConnection } from '../redis/redis-connections';
import { QueueName } from './queue.names';
import { JobRun, StalledJobIsolation } from './stalled-job-isolation';

export interface RunningWorker {
  /** Waits for in-flight jobs (up to `timeoutMs`, then forces), and closes the connection. */
  close(timeoutMs: number): Promise<void>;
}

const FORCED_CLOSE_TIMEOUT_MS = 2000;

/**
 * Every queue worker of this process, so they close together: each processor's shutdown hook calls `closeAll`, the
 * first call closes them all at once and the others wait for that same close. Nest runs the hooks of different modules
 * one after another, so a worker with Redis gone (each waits its timeout) took the sum of the timeouts to stop.
 */
@Injectable()
export class QueueWorkers {
  private readonly running: RunningWorker[] = [];
  private closing?: Promise<void>;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /**
   * A BullMQ worker on its own blocking connection, with the app's queue prefix and errors logged, not thrown. A job
   * that stalled before runs alone (StalledJobIsolation); `process` is told so.
   */
  start<T>(
    logger: Logger,
    queue: QueueName,
    process: (job: Job<T>, run: JobRun) => Promise<unknown>,
    options: Omit<WorkerOptions, 'connection' | 'prefix'>,
    onJobFailed?: (job: Job<T> | undefined, error: Error) => void,
  ): RunningWorker {
    const connection = createWorkerConnection(this.config.redis);
    connection.on('error', (error) => logger.warn({ err: error.message, queue }, 'worker redis connection error'));
    const isolation = new StalledJobIsolation<T>(() => worker, logger.child({ queue }));
    const worker: Worker<T> = new Worker<T>(queue, (job, token) => isolation.run(job, token, process), {
      ...options,
      connection,
      prefix: this.config.queueKeyPrefix,
    });
    worker.on('error', (error) => logger.error({ err: error.message, queue }, 'worker error'));
    // also emitted for attempts that will be retried; the listener decides what a failure means
    if (onJobFailed) worker.on('failed', (job, error) => onJobFailed(job, error));
    const running: RunningWorker = {
      async close(timeoutMs: number) {
        if (!(await settlesWithin(worker.close(), timeoutMs))) {
          logger.warn({ queue }, 'in-flight jobs did not finish in time; another worker will retry them');
          // BullMQ's forced close can itself wait forever on a Cluster connection that went through CLUSTERDOWN
          if (!(await settlesWithin(worker.close(true), FORCED_CLOSE_TIMEOUT_MS))) {
            logger.warn({ queue }, 'worker did not close; dropping its connections');
            await settlesWithin(worker.disconnect(), FORCED_CLOSE_TIMEOUT_MS);
          }
        }
        connection.disconnect();
      },
    };
    this.running.push(running);
    return running;
  }

  /** Waits for in-flight jobs of every worker at once (each up to SHUTDOWN_TIMEOUT_MS, then forced). */
  closeAll(): Promise<void> {
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
