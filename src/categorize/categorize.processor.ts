import { Inject, Injectable, OnApplicationBootstrap, BeforeApplicationShutdown } from '@nestjs/common';
import { Job } from 'bullmq';
import { Logger } from 'pino';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { JobName, QueueName } from '../infra/queue/queue.names';
import { payloadOf } from '../infra/queue/queue.jobs';
import { QueueWorkers } from '../infra/queue/queue-worker';
import { JobRun } from '../infra/queue/stalled-job-isolation';
import { CategorizeService } from './categorize.service';
import { FailedBatchesReconciler } from './failed-batches.reconciler';

/**
 * The BullMQ worker of the events queue: unwraps the job and calls the service. A job BullMQ fails (last attempt,
 * stalled past the limit, refused) is parked by the FailedBatchesReconciler, which a failure here wakes at once.
 */
@Injectable()
export class CategorizeProcessor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger: Logger;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ROOT_LOGGER) rootLogger: Logger,
    private readonly categorize: CategorizeService,
    private readonly failedBatches: FailedBatchesReconciler,
    private readonly workers: QueueWorkers,
  ) {
    this.logger = rootLogger.child({ context: 'CategorizeProcessor' });
  }

  onApplicationBootstrap() {
    this.workers.start(
      this.logger,
      QueueName.Events,
      (job: Job<unknown>, run: JobRun) => this.process(job, run),
      {
        // enough jobs held at once to fill every group the service may be writing (CategorizeService, WriteGroups)
        concurrency: this.config.workerConcurrency * this.config.workerGroupMaxBatches,
        lockDuration: this.config.workerLockDurationMs,
        stalledInterval: Math.max(1000, Math.floor(this.config.workerLockDurationMs / 2)),
        // a job the worker keeps dying on is failed after this many stalls, then dead-lettered, instead of crashing
        // every worker that picks it up
        maxStalledCount: this.config.workerMaxStalledCount,
      },
      () => this.failedBatches.reconcileSoon(),
    );
    const { workerConcurrency, workerGroupMaxBatches, workerGroupWaitMs } = this.config;
    this.logger.info({ workerConcurrency, workerGroupMaxBatches, workerGroupWaitMs }, 'categorize worker started');
  }

  async process(job: Job<unknown>, run: JobRun) {
    const batch = payloadOf(JobName.CategorizeBatch, job);
    const startedAt = Date.now();
    try {
      // a job run alone is written in a group of its own: it may be what killed the last worker holding it
      const outcome = await this.categorize.categorizeBatch(batch, job.id!, { isAlone: run.isAlone });
      this.logger.debug({ jobId: job.id, ...outcome, ms: Date.now() - startedAt }, 'batch stored');
      return outcome;
    } catch (error) {
      this.logger.warn({ jobId: job.id, attempt: job.attemptsMade + 1, err: String(error) }, 'batch failed');
      throw error;
    }
  }

  /** Lets in-flight batches finish (their transactions commit or roll back whole); unfinished ones are retried later. */
  async beforeApplicationShutdown() {
    await this.workers.closeAll();
    this.logger.info('categorize worker stopped');
  }
}
