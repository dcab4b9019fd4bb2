import { Inject, Injectable } from '@nestjs/common';
import { Job } from 'bullmq';
import { Logger } from 'pino';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { JobHandler, OnJobFailed } from '../infra/queue/job-handler';
import { JobName } from '../infra/queue/queue.names';
import { CategorizeBatchPayload } from '../infra/queue/queue.payloads';
import { JobRun } from '../infra/queue/stalled-job-isolation';
import { CategorizeService } from './categorize.service';
import { FailedBatchesReconciler } from './failed-batches.reconciler';

/**
 * Runs the jobs of the events queue: unwraps the job and calls the service. A job BullMQ fails (last attempt, stalled
 * past the limit, refused) is parked by the FailedBatchesReconciler, which a failure here wakes at once.
 */
@Injectable()
export class CategorizeProcessor {
  private readonly logger: Logger;

  constructor(
    @Inject(ROOT_LOGGER) rootLogger: Logger,
    private readonly categorize: CategorizeService,
    private readonly failedBatches: FailedBatchesReconciler,
  ) {
    this.logger = rootLogger.child({ context: 'CategorizeProcessor' });
  }

  @JobHandler(JobName.CategorizeBatch)
  async categorizeBatch(batch: CategorizeBatchPayload, job: Job, run: JobRun) {
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

  @OnJobFailed(JobName.CategorizeBatch)
  wakeReconciler() {
    this.failedBatches.reconcileSoon();
  }
}
