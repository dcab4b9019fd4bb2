import { Inject, Injectable } from '@nestjs/common';
import { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import { ApiError, FieldError } from '../infra/http/api-error';
import { isBodyTextStorable } from '../infra/http/json-body-parser';
import { AcceptedEvent } from '../infra/queue/queue.payloads';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { JobName } from '../infra/queue/queue.names';
import { QueueProducer, queueUnavailableResponse, QueueUnavailableError } from '../infra/queue/queue.producer';
import { eventErrors, MAX_EVENTS_PER_BATCH } from './event.schemas';
import { normalizeEvent } from './event-normalizer';
import { mapProviderShape } from './provider-shapes';

export interface IngestResult {
  accepted: number;
  ids: string[];
  rejected: Array<{ index: number; errors: FieldError[] }>;
  /** The sender's `client` object, echoed when the batch carried one. */
  client?: ClientInfo;
}

/** What an SDK says about itself next to `events`; `dropped` counts events it lost since its last delivered batch. */
export interface ClientInfo {
  sdk: string;
  version: string;
  dropped: number;
}

const UNCONFIRMED_MESSAGE =
  'The event queue did not confirm in time; these events may or may not have been queued. Resending them with the same ids is safe (an id is stored once); events sent without an id could be stored twice.';

@Injectable()
export class IngestService {
  private readonly logger: Logger;

  constructor(
    private readonly producer: QueueProducer,
    @Inject(ROOT_LOGGER) rootLogger: Logger,
  ) {
    this.logger = rootLogger.child({ context: 'IngestService' });
  }

  /** Validates a request body, then queues all valid events as ONE job. Resolves only once Redis holds that job. */
  async ingest(projectId: string, body: unknown, now: Date = new Date()): Promise<IngestResult> {
    const { accepted, rejected } = this.validateEvents(this.eventsOf(body), now, isBodyTextStorable(body));
    if (accepted.length === 0) {
      throw new ApiError(400, 'invalid_events', 'No event in the request is valid', {
        details: rejected.flatMap((r) => r.errors),
        body: { accepted: 0, rejected },
      });
    }
    await this.enqueue(projectId, accepted, now);
    const result: IngestResult = { accepted: accepted.length, ids: accepted.map((e) => e.id), rejected };
    const client = clientInfoOf(body);
    if (client) {
      // Events an SDK dropped never reach us; this line is the only trace that they existed.
      if (client.dropped > 0)
        this.logger.warn({ projectId, client }, `${client.sdk} ${client.version} dropped ${client.dropped} events before sending`);
      result.client = client;
    }
    return result;
  }

  /**
   * Validates events another format was mapped to (OTLP spans) and queues the valid ones as ONE job; none valid is
   * not an error here, the caller reports it in its own protocol.
   */
  async ingestMapped(projectId: string, rawEvents: unknown[], now: Date = new Date()): Promise<IngestResult> {
    const { accepted, rejected } = this.validateEvents(rawEvents, now, false);
    if (accepted.length > 0) await this.enqueue(projectId, accepted, now);
    return { accepted: accepted.length, ids: accepted.map((e) => e.id), rejected };
  }

  /** `isTextStorable`: the events come verbatim from a body whose text held no NUL or lone surrogate (json-body-parser). */
  private validateEvents(
    rawEvents: unknown[],
    now: Date,
    isTextStorable: boolean,
  ): Pick<IngestResult, 'rejected'> & { accepted: AcceptedEvent[] } {
    const accepted: AcceptedEvent[] = [];
    const rejected: IngestResult['rejected'] = [];
    rawEvents.forEach((given, index) => {
      const mapped = mapProviderShape(given, index);
      if ('errors' in mapped) return rejected.push({ index, errors: mapped.errors });
      const raw = mapped.event;
      const errors = eventErrors(raw, index);
      if (errors.length > 0) return rejected.push({ index, errors });
      // a provider shape's derived fields are new text (a JSON.parse message can hold half a surrogate pair): judged anew
      const normalized = normalizeEvent(raw as Parameters<typeof normalizeEvent>[0], index, now, isTextStorable && raw === given);
      if ('errors' in normalized) return rejected.push({ index, errors: normalized.errors });
      accepted.push(normalized.event);
    });
    return { accepted, rejected };
  }

  private async enqueue(projectId: string, accepted: AcceptedEvent[], now: Date): Promise<void> {
    try {
      await this.producer.enqueue(JobName.CategorizeBatch, { projectId, receivedAt: now.toISOString(), events: accepted }, randomUUID());
    } catch (error) {
      if (!(error instanceof QueueUnavailableError)) throw error;
      // unconfirmed: the job may still land, so no count is claimed either way
      throw queueUnavailableResponse(
        error,
        { unavailable: 'The event queue is unavailable; nothing was accepted. Retry later.', unconfirmed: UNCONFIRMED_MESSAGE },
        { accepted: 0 },
      );
    }
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

/** The optional `client` object of a batch body; anything malformed is ignored, since it never affects the events. */
function clientInfoOf(body: unknown): ClientInfo | undefined {
  const client = (body as { client?: unknown }).client;
  if (client === null || typeof client !== 'object') return undefined;
  const { sdk, version, dropped } = client as Record<string, unknown>;
  if (typeof sdk !== 'string' || typeof version !== 'string' || typeof dropped !== 'number' || !Number.isInteger(dropped) || dropped < 0)
    return undefined;
  return { sdk: sdk.slice(0, 100), version: version.slice(0, 50), dropped };
}
