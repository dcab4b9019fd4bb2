import type { WorkerOptions } from 'bullmq';
import { AppConfig } from '../../config/config';
import { QueueName } from './queue.names';

export type WorkerSettings = Omit<WorkerOptions, 'connection' | 'prefix'>;

/** Alert deliveries one worker process has in flight at once; DeliverySlots (alerts) shares them between projects. */
export const ALERT_DELIVERY_SLOTS = 8;

/**
 * How the worker of each queue runs, whichever jobs its handlers are (job-handler.ts): the per-job options (attempts,
 * backoff, what is kept) are in queue.jobs.ts. The legacy dead-letter queue has no worker.
 */
export const QUEUE_WORKERS: Record<Exclude<QueueName, QueueName.DeadLetter>, (config: AppConfig) => WorkerSettings> = {
  [QueueName.Events]: (config) => ({
    // enough jobs held at once to fill every group the service may be writing (CategorizeService, WriteGroups)
    concurrency: config.workerConcurrency * config.workerGroupMaxBatches,
    lockDuration: config.workerLockDurationMs,
    stalledInterval: Math.max(1000, Math.floor(config.workerLockDurationMs / 2)),
    // a job the worker keeps dying on is failed after this many stalls, then dead-lettered, instead of crashing every
    // worker that picks it up
    maxStalledCount: config.workerMaxStalledCount,
  }),
  // one nightly at a time per worker process; a day of analytics may take minutes on a large project
  [QueueName.Analytics]: () => ({ concurrency: 1, lockDuration: 5 * 60_000 }),
  [QueueName.Alerts]: () => ({ concurrency: ALERT_DELIVERY_SLOTS }),
  // partition DDL takes locks; one at a time per process, and the retention service's advisory lock across them
  [QueueName.Maintenance]: () => ({ concurrency: 1, lockDuration: 5 * 60_000 }),
};
