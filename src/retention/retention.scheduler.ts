import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { CronJob } from 'cron';
import { Logger } from 'pino';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { RetentionService } from './retention.service';

/**
 * Runs partition maintenance itself at RETENTION_CRON and once at start-up, instead of enqueuing it like the nightly
 * job: creating tomorrow's partitions must not wait behind a backlog of event batches, nor depend on a worker being up.
 * Every scheduler replica ticks; the service's advisory lock lets one of them work, the others skip.
 */
@Injectable()
export class RetentionScheduler implements OnApplicationBootstrap {
  private readonly logger: Logger;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ROOT_LOGGER) rootLogger: Logger,
    private readonly schedulerRegistry: SchedulerRegistry,
    private readonly retention: RetentionService,
  ) {
    this.logger = rootLogger.child({ context: 'RetentionScheduler' });
  }

  onApplicationBootstrap() {
    const job = CronJob.from({
      cronTime: this.config.retentionCron,
      timeZone: 'UTC',
      onTick: () => this.runMaintenance(new Date()),
      start: true,
    });
    this.schedulerRegistry.addCronJob('retention', job);
    this.logger.debug({ cron: this.config.retentionCron }, 'retention maintenance scheduled');
    void this.runMaintenance(new Date());
  }

  async runMaintenance(now: Date): Promise<void> {
    try {
      await this.retention.runMaintenance(now);
    } catch (error) {
      // the next tick tries again; inserts never depend on it (days without a partition go to events_default)
      this.logger.error({ err: (error as Error).message }, 'retention maintenance failed');
    }
  }
}
