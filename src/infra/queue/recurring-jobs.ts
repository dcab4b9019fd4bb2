import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Logger } from 'pino';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { ROOT_LOGGER } from '../logging/logging.module';
import { QueueProducer } from './queue.producer';
import { RecurringJobName, SCHEDULES } from './queue.schedules';

/**
 * The scheduler role's one duty: at boot, upserts a BullMQ job scheduler for every recurring job of SCHEDULES (its id
 * is the job's name) with the schedule the configuration gives it now, and removes the schedulers no longer listed.
 * Nothing is removed at shutdown: the schedule is shared by every scheduler replica and must outlive each of them.
 */
@Injectable()
export class RecurringJobs implements OnApplicationBootstrap {
  private readonly logger: Logger;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ROOT_LOGGER) rootLogger: Logger,
    private readonly producer: QueueProducer,
  ) {
    this.logger = rootLogger.child({ context: 'RecurringJobs' });
  }

  async onApplicationBootstrap() {
    const names = Object.keys(SCHEDULES) as RecurringJobName[];
    for (const name of names) {
      const repeat = SCHEDULES[name](this.config);
      await this.producer.schedule(name, repeat);
      this.logger.info({ job: name, ...repeat }, 'recurring job scheduled');
    }
    for (const removed of await this.producer.unscheduleAllBut(names)) this.logger.info({ job: removed }, 'recurring job unscheduled');
  }
}
