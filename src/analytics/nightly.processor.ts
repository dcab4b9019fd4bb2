import { Inject, Injectable, OnApplicationBootstrap, BeforeApplicationShutdown } from '@nestjs/common';
import { Job, UnrecoverableError } from 'bullmq';
import { Logger } from 'pino';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { payloadOf } from '../infra/queue/queue.jobs';
import { JobName, QueueName } from '../infra/queue/queue.names';
import { RunningWorker, startQueueWorker } from '../infra/queue/queue-worker';
import { parseDay } from './analytics-day';
import { NightlyService } from './nightly.service';

/** Runs the nightly jobs, one at a time per worker process: the scheduler's (every project) and those the API queued. */
@Injectable()
export class NightlyProcessor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private worker?: RunningWorker;
  private readonly logger: Logger;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ROOT_LOGGER) rootLogger: Logger,
    private readonly nightly: NightlyService,
  ) {
    this.logger = rootLogger.child({ context: 'NightlyProcessor' });
  }

  onApplicationBootstrap() {
    this.worker = startQueueWorker(this.config, this.logger, QueueName.Analytics, (job: Job<unknown>) => this.process(job), {
      concurrency: 1,
      // a day of analytics may take minutes on a large project
      lockDuration: 5 * 60_000,
    });
  }

  async process(job: Job<unknown>) {
    if (job.name === JobName.NightlyProjectRun) {
      const { runId, projectId, day } = payloadOf(JobName.NightlyProjectRun, job);
      return this.nightly.runQueuedRun(runId, projectId, dayOf(day));
    }
    await this.nightly.runForAllProjects(dayOf(payloadOf(JobName.NightlyRun, job).day), 'schedule');
  }

  async beforeApplicationShutdown() {
    await this.worker?.close(this.config.shutdownTimeoutMs);
  }
}

/** A pattern-valid day that is not on the calendar (2026-02-30) can never run either. */
function dayOf(text: string): Date {
  const day = parseDay(text);
  if (!day) throw new UnrecoverableError(`invalid day ${text}`);
  return day;
}
