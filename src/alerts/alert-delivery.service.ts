import { Inject, Injectable } from '@nestjs/common';
import { Logger } from 'pino';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { AlertDeliveryPayload } from '../infra/queue/queue.payloads';
import { AlertDeliveryRepository, DeliveryOutcome } from './alert-delivery.repository';
import { AlertDestinationRepository, StoredDestination } from './alert-destination.repository';
import { Notification, renderNotification } from './notification-format';
import { postToPinned, RefusedDestinationError, resolveDestination } from './outbound-request';
import { SIGNATURE_HEADER, signWebhook, TIMESTAMP_HEADER } from './webhook-signature';

/** A destination whose deliveries have all failed for this long is paused. */
export const PAUSE_AFTER_FAILING_MS = 24 * 3_600_000;
const MAX_ERROR_CHARS = 500;

export interface AttemptResult {
  outcome: DeliveryOutcome;
  statusCode: number | null;
  latencyMs: number | null;
  error: string | null;
}

/** A delivery attempt that failed and may succeed later: the queue retries it with backoff. */
export class RetryableDeliveryError extends Error {}

/** Sends one notification to one destination, records the attempt, and keeps the destination's health. */
@Injectable()
export class AlertDeliveryService {
  private readonly logger: Logger;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ROOT_LOGGER) rootLogger: Logger,
    private readonly destinations: AlertDestinationRepository,
    private readonly deliveries: AlertDeliveryRepository,
  ) {
    this.logger = rootLogger.child({ context: 'AlertDeliveryService' });
  }

  /**
   * One attempt of a queued notification. Throws RetryableDeliveryError when it failed and may be retried; a refused
   * destination (SSRF guard) or one deleted or paused meanwhile ends the notification.
   */
  async deliverQueued(notificationId: string, payload: AlertDeliveryPayload, attempt: number, now: Date): Promise<AttemptResult | null> {
    const destination = await this.destinations.findDestination(payload.projectId, payload.destinationId);
    if (!destination || destination.pausedAt) return null;
    const result = await this.attempt(destination, notificationId, payload.notification as unknown as Notification, now);
    await this.deliveries.insertAttempt({
      projectId: payload.projectId,
      destinationId: destination.id,
      notificationId,
      incidentId: payload.incidentId,
      event: payload.event,
      attempt,
      ...result,
    });
    await this.recordHealth(destination, result, now);
    if (result.outcome === 'failed') throw new RetryableDeliveryError(result.error ?? `answered ${result.statusCode}`);
    return result;
  }

  /** The "send test notification" route: one attempt now, recorded like any other. */
  async sendTest(destination: StoredDestination, now: Date): Promise<AttemptResult> {
    const notificationId = `test-${now.getTime()}-${destination.id.slice(0, 8)}`;
    const notification: Notification = {
      type: 'test',
      projectId: destination.projectId,
      summary: `Test notification for destination ${JSON.stringify(destination.name)}`,
    };
    const result = await this.attempt(destination, notificationId, notification, now);
    await this.deliveries.insertAttempt({
      projectId: destination.projectId,
      destinationId: destination.id,
      notificationId,
      incidentId: null,
      event: 'test',
      attempt: 1,
      ...result,
    });
    await this.recordHealth(destination, result, now);
    return result;
  }

  private async attempt(
    destination: StoredDestination,
    notificationId: string,
    notification: Notification,
    now: Date,
  ): Promise<AttemptResult> {
    const body = renderNotification(destination.kind, notificationId, notification);
    let target;
    try {
      target = await resolveDestination(destination.url, this.config.alertAllowPrivateDestinations);
    } catch (error) {
      const outcome = error instanceof RefusedDestinationError ? 'refused' : 'failed';
      return { outcome, statusCode: null, latencyMs: null, error: errorText(error) };
    }
    const headers: Record<string, string> = {
      'user-agent': 'toolcoach-alerts',
      'x-toolcoach-delivery': notificationId,
      'x-toolcoach-event': notification.type,
    };
    if (destination.kind === 'webhook') {
      const timestamp = Math.floor(now.getTime() / 1000);
      headers[TIMESTAMP_HEADER] = String(timestamp);
      headers[SIGNATURE_HEADER] = signWebhook(destination.secret, timestamp, body);
    }
    try {
      const { statusCode, latencyMs } = await postToPinned(target, headers, body);
      const isDelivered = statusCode >= 200 && statusCode < 300;
      // a redirect is not followed: the project configured this URL, not the one it points to
      const error = isDelivered
        ? null
        : statusCode >= 300 && statusCode < 400
          ? `answered ${statusCode}; redirects are not followed`
          : `answered ${statusCode}`;
      return { outcome: isDelivered ? 'delivered' : 'failed', statusCode, latencyMs, error };
    } catch (error) {
      return { outcome: 'failed', statusCode: null, latencyMs: null, error: errorText(error) };
    }
  }

  private async recordHealth(destination: StoredDestination, result: AttemptResult, now: Date) {
    if (result.outcome === 'delivered') {
      await this.destinations.recordSuccess(destination.projectId, destination.id);
      return;
    }
    if (await this.destinations.recordFailure(destination.projectId, destination.id, now, PAUSE_AFTER_FAILING_MS)) {
      // the URL may hold a token (Slack's do): log the destination by id only
      this.logger.warn(
        { projectId: destination.projectId, destinationId: destination.id },
        'alert destination paused after a day of failed deliveries',
      );
    }
  }
}

function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.slice(0, MAX_ERROR_CHARS);
}
