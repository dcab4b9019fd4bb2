import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { DelayedError, Job } from 'bullmq';
import { Logger } from 'pino';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { payloadOf } from '../infra/queue/queue.jobs';
import { JobName, QueueName } from '../infra/queue/queue.names';
import { QueueWorkers } from '../infra/queue/queue-worker';
import { JobRun } from '../infra/queue/stalled-job-isolation';
import { AlertDeliveryService } from './alert-delivery.service';
import { DELIVERY_SLOTS, DeliverySlots } from './delivery-slots';

/** A delivery whose project or destination has its share of slots in flight comes back after this long. */
export const WAIT_FOR_SLOT_MS = 1000;

/**
 * Sends queued alert notifications; a failed attempt throws so BullMQ retries it with exponential backoff. The slots
 * are shared between projects (DeliverySlots): a delivery over its project's or destination's share is put back as
 * delayed, without counting an attempt, so one project's hanging receivers cannot hold every slot.
 */
@Injectable()
export class AlertDeliveryProcessor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger: Logger;
  private readonly slots = new DeliverySlots();

  constructor(
    @Inject(ROOT_LOGGER) rootLogger: Logger,
    private readonly delivery: AlertDeliveryService,
    private readonly workers: QueueWorkers,
  ) {
    this.logger = rootLogger.child({ context: 'AlertDeliveryProcessor' });
  }

  onApplicationBootstrap() {
    this.workers.start(this.logger, QueueName.Alerts, (job: Job<unknown>, run: JobRun) => this.process(job, run), {
      concurrency: DELIVERY_SLOTS,
    });
  }

  async process(job: Job<unknown>, run: JobRun) {
    const payload = payloadOf(JobName.AlertDelivery, job);
    if (!this.slots.tryTake(payload.projectId, payload.destinationId)) {
      await job.moveToDelayed(Date.now() + WAIT_FOR_SLOT_MS, run.token);
      throw new DelayedError();
    }
    try {
      await this.delivery.deliverQueued(job.id!, payload, job.attemptsMade + 1, new Date());
    } finally {
      this.slots.release(payload.projectId, payload.destinationId);
    }
  }

  async beforeApplicationShutdown() {
    await this.workers.closeAll();
  }
}
