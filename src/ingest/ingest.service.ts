import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ApiError, FieldError } from '../infra/http/api-error';
import { AcceptedEvent } from '../infra/queue/queue.payloads';
import { QueueProducer, QueueUnavailableError } from '../infra/queue/queue.producer';
import { eventErrors, MAX_EVENTS_PER_BATCH } from './event.schemas';
import { normalizeEvent } from './event-normalizer';

export interface IngestResult {
  accepted: number;
  ids: string[];
  rejected: Array<{ index: number; errors: FieldError[] }>;
}

export const QUEUE_RETRY_AFTER_SECONDS = 5;

@Injectable()
export class IngestService {
  constructor(private readonly producer: QueueProducer) {}

  /** Validates a request body, then queues all valid events as ONE job. Resolves only once Redis holds that job. */
  async ingest(projectId: string, body: unknown, now: Date = new Date()): Promise<IngestResult> {
    const rawEvents = this.eventsOf(body);
    const accepted: AcceptedEvent[] = [];
    const rejected: IngestResult['rejected'] = [];
    rawEvents.forEach((raw, index) => {
      const errors = eventErrors(raw, index);
      if (errors.length > 0) return rejected.push({ index, errors });
      const normalized = normalizeEvent(raw as Parameters<typeof normalizeEvent>[0], index, now);
      if ('errors' in normalized) return rejected.push({ index, errors: normalized.errors });
      accepted.push(normalized.event);
    });
    if (accepted.length === 0) {
      throw new ApiError(400, 'invalid_events', 'No event in the request is valid', {
        details: rejected.flatMap((r) => r.errors),
        body: { accepted: 0, rejected },
      });
    }
    try {
      await this.producer.enqueueCategorizeBatch(randomUUID(), {
        projectId,
        receivedAt: now.toISOString(),
        events: accepted,
      });
    } catch (error) {
      if (!(error instanceof QueueUnavailableError)) throw error;
      throw new ApiError(503, 'queue_unavailable', 'The event queue is unavailable; nothing was accepted. Retry later.', {
        headers: { 'retry-after': String(QUEUE_RETRY_AFTER_SECONDS) },
        body: { accepted: 0 },
      });
    }
    return { accepted: accepted.length, ids: accepted.map((e) => e.id), rejected };
  }

  private eventsOf(body: unknown): unknown[] {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new ApiError(400, 'invalid_body', 'Body must be an event object or {"events": [...]}', {
        details: [{ path: '', message: 'must be an object' }],
      });
    }
    if (!('events' in body)) return [body];
    const { events } = body as { events: unknown };
    if (!Array.isArray(events)) {
      throw new ApiError(400, 'invalid_body', '"events" must be an array', {
        details: [{ path: '/events', message: 'must be an array' }],
      });
    }
    if (events.length === 0) {
      throw new ApiError(400, 'invalid_body', '"events" must hold at least one event', {
        details: [{ path: '/events', message: 'must have at least 1 item' }],
      });
    }
    if (events.length > MAX_EVENTS_PER_BATCH) {
      throw new ApiError(413, 'too_many_events', `A request may hold at most ${MAX_EVENTS_PER_BATCH} events`, {
        details: [{ path: '/events', message: `must have at most ${MAX_EVENTS_PER_BATCH} items, got ${events.length}` }],
      });
    }
    return events;
  }
}
