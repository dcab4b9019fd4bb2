import { Job, Worker, WorkerOptions } from 'bullmq';
import { Logger } from 'pino';
import { AppConfig } from '../../config/config';
import { createWorkerConnection } from '../redis/redis-connections';
import { QueueName } from './queue.names';

export interface RunningWorker {
  /** Waits for in-flight jobs (up to `timeoutMs`, then forces), and closes the connection. */
  close(timeoutMs: number): Promise<void>;
}

/** A BullMQ worker on its own blocking connection, with the app's queue prefix and errors logged, not thrown. */
export function startQueueWorker<T>(
  config: AppConfig,
  logger: Logger,
  queue: QueueName,
  process: (job: Job<T>) => Promise<unknown>,
  options: Omit<WorkerOptions, 'connection' | 'prefix'>,
  onJobFailed?: (job: Job<T> | undefined, error: Error) => void,
): RunningWorker {
  const connection = createWorkerConnection(config.redis);
  connection.on('error', (error) => logger.warn({ err: error.message, queue }, 'worker redis connection error'));
  const worker = new Worker<T>(queue, process, { ...options, connection, prefix: config.queueKeyPrefix });
  worker.on('error', (error) => logger.error({ err: error.message, queue }, 'worker error'));
  // also emitted for attempts that will be retried; the listener decides what a failure means
  if (onJobFailed) worker.on('failed', (job, error) => onJobFailed(job, error));
  return {
    async close(timeoutMs: number) {
      const hasTimedOut = await Promise.race([
        worker.close().then(() => false),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(true), timeoutMs).unref()),
      ]);
      if (hasTimedOut) {
        logger.warn({ queue }, 'in-flight jobs did not finish in time; another worker will retry them');
        await worker.close(true);
      }
      connection.disconnect();
    },
  };
}
