import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { CronJob } from 'cron';
import { Logger } from 'pino';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { JobName } from '../infra/queue/queue.names';
import { QueueProducer } from '../infra/queue/queue.producer';
import { formatDay, previousDay } from './analytics-day';

/**
 * Only enqueues: at NIGHTLY_CRON every scheduler replica adds the job for yesterday under the same job id, so exactly
 * one job exists per night; a worker runs it.
 */
@Injectable()
export class NightlyScheduler implements OnApplicationBootstrap {
  private readonly logger: Logger;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ROOT_LOGGER) rootLogger: Logger,
    private readonly schedulerRegistry: SchedulerRegistry,
    private readonly producer: QueueProducer,
  ) {
    this.logger = rootLogger.child({ context: 'NightlyScheduler' });
  }

  onApplicationBootstrap() {
    const job = CronJob.from({
      cronTime: this.config.nightlyCron,
      timeZone: this.config.nightlyTimeZone,
      onTick: () => this.enqueueNightly(new Date()),
      start: true,
    });
    this.schedulerRegistry.addCronJob('nightly', job);
    this.logger.info({ cron: this.config.nightlyCron, timeZone: this.config.nightlyTimeZone }, 'nightly job scheduled');
  }

  async enqueueNightly(now: Date): Promise<void> {
    const day = formatDay(previousDay(now));
    try {
      // the job id is the day, so every scheduler replica enqueuing the same night adds one job between them
      await this.producer.enqueue(JobName.NightlyRun, { day }, `nightly-${day}`);
      this.logger.info({ day }, 'nightly job enqueued');
    } catch (error) {
      this.logger.error({ day, err: (error as Error).message }, 'could not enqueue the nightly job');
    }
  }
}
