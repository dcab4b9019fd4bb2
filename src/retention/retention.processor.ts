import { Inject, Injectable } from '@nestjs/common';
import { Logger } from 'pino';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { JobHandler } from '../infra/queue/job-handler';
import { JobName } from '../infra/queue/queue.names';
import { RetentionService } from './retention.service';

/**
 * Runs partition maintenance, the recurring retention-maintenance job (RETENTION_CRON and once when a scheduler
 * starts, queue.schedules.ts), on the maintenance queue the scheduler role works itself: creating tomorrow's
 * partitions must not wait behind a backlog of event batches, nor depend on a worker being up. The service's advisory
 * lock lets one run work at a time.
 */
@Injectable()
export class RetentionProcessor {
  private readonly logger: Logger;

  constructor(
    @Inject(ROOT_LOGGER) rootLogger: Logger,
    private readonly retention: RetentionService,
  ) {
    this.logger = rootLogger.child({ context: 'RetentionProcessor' });
  }

  @JobHandler(JobName.RetentionMaintenance)
  async runMaintenance() {
    try {
      return await this.retention.runMaintenance(new Date());
    } catch (error) {
      // the next occurrence tries again; inserts never depend on it (days without a partition go to events_default)
      this.logger.error({ err: (error as Error).message }, 'retention maintenance failed');
      throw error;
    }
  }
}
