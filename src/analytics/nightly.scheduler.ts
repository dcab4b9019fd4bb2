import { Inject, Injectable } from '@nestjs/common';
import { Logger } from 'pino';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { JobHandler } from '../infra/queue/job-handler';
import { JobName } from '../infra/queue/queue.names';
import { QueueProducer } from '../infra/queue/queue.producer';
import { formatDay, previousDay } from './analytics-day';

/**
 * Only enqueues: each occurrence of the recurring nightly-schedule job (NIGHTLY_CRON, queue.schedules.ts) adds the
 * job for yesterday under the day as its job id, so exactly one job exists per night however often it is asked for;
 * a worker runs it.
 */
@Injectable()
export class NightlyScheduler {
  private readonly logger: Logger;

  constructor(
    @Inject(ROOT_LOGGER) rootLogger: Logger,
    private readonly producer: QueueProducer,
  ) {
    this.logger = rootLogger.child({ context: 'NightlyScheduler' });
  }

  @JobHandler(JobName.NightlySchedule)
  async enqueueScheduledNightly(): Promise<void> {
    await this.enqueueNightly(new Date());
  }

  async enqueueNightly(now: Date): Promise<void> {
    const day = formatDay(previousDay(now));
    try {
      await this.producer.enqueue(JobName.NightlyRun, { day }, `nightly-${day}`);
      this.logger.info({ day }, 'nightly job enqueued');
    } catch (error) {
      this.logger.error({ day, err: (error as Error).message }, 'could not enqueue the nightly job');
      throw error;
    }
  }
}
