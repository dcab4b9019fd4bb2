import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Job } from 'bullmq';
import { Logger } from 'pino';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { payloadOf } from '../infra/queue/queue.jobs';
import { JobName, QueueName } from '../infra/queue/queue.names';
import { QueueWorkers } from '../infra/queue/queue-worker';
import { AlertDeliveryService } from './alert-delivery.service';

/** Sends queued alert notifications; a failed attempt throws so BullMQ retries it with exponential backoff. */
@Injectable()
export class AlertDeliveryProcessor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger: Logger;

  constructor(
    @Inject(ROOT_LOGGER) rootLogger: Logger,
    private readonly delivery: AlertDeliveryService,
    private readonly workers: QueueWorkers,
  ) {
    this.logger = rootLogger.child({ context: 'AlertDeliveryProcessor' });
  }

  onApplicationBootstrap() {
    // each attempt waits at most the 5 s delivery timeout; a few at once keep one slow receiver from holding the rest
    this.workers.start(this.logger, QueueName.Alerts, (job: Job<unknown>) => this.process(job), {
      concurrency: 4,
    });
  }

  async process(job: Job<unknown>) {
    const payload = payloadOf(JobName.AlertDelivery, job);
    await this.delivery.deliverQueued(job.id!, payload, job.attemptsMade + 1, new Date());
  }

  async beforeApplicationShutdown() {
    await this.workers.closeAll();
  }
}
