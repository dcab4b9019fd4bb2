import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { JobName } from '../infra/queue/queue.names';
import { QueueProducer } from '../infra/queue/queue.producer';
import { AlertDestinationRepository } from './alert-destination.repository';
import type { Notification } from './notification-format';

export type NotificationEvent = 'opened' | 'resolved' | 'rollout';

/**
 * Queues one delivery job per notification and active destination of the project. The job id is derived from what
 * is notified (`key`) and the destination, so a notification queued twice (an evaluation retried) is sent once.
 */
@Injectable()
export class AlertNotifier {
  constructor(
    private readonly destinations: AlertDestinationRepository,
    private readonly producer: QueueProducer,
  ) {}

  async notify(
    projectId: string,
    key: string,
    event: NotificationEvent,
    incidentId: string | null,
    notification: Notification,
  ): Promise<number> {
    const targets = await this.destinations.findActiveDestinations(projectId);
    for (const destination of targets) {
      const payload = { projectId, destinationId: destination.id, incidentId, event, notification: { ...notification } };
      await this.producer.enqueue(JobName.AlertDelivery, payload, notificationId(key, destination.id));
    }
    return targets.length;
  }
}

/** BullMQ job ids may not contain ':' ; a hash keeps them short and of one alphabet. */
function notificationId(key: string, destinationId: string): string {
  return `alert-${createHash('sha256').update(`${key}\u0000${destinationId}`).digest('hex').slice(0, 32)}`;
}
