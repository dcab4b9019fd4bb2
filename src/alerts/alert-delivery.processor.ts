import { Injectable } from '@nestjs/common';
import { DelayedError, Job } from 'bullmq';
import { JobHandler } from '../infra/queue/job-handler';
import { JobName } from '../infra/queue/queue.names';
import { AlertDeliveryPayload } from '../infra/queue/queue.payloads';
import { JobRun } from '../infra/queue/stalled-job-isolation';
import { AlertDeliveryService } from './alert-delivery.service';
import { DeliverySlots } from './delivery-slots';

/** A delivery whose project or destination has its share of slots in flight comes back after this long. */
export const WAIT_FOR_SLOT_MS = 1000;

/**
 * Sends queued alert notifications; a failed attempt throws so BullMQ retries it with exponential backoff. The slots
 * are shared between projects (DeliverySlots): a delivery over its project's or destination's share is put back as
 * delayed, without counting an attempt, so one project's hanging receivers cannot hold every slot.
 */
@Injectable()
export class AlertDeliveryProcessor {
  private readonly slots = new DeliverySlots();

  constructor(private readonly delivery: AlertDeliveryService) {}

  @JobHandler(JobName.AlertDelivery)
  async deliver(payload: AlertDeliveryPayload, job: Job, run: JobRun) {
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
}
