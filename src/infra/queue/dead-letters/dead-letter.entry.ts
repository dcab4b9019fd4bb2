import { createHash } from 'node:crypto';
import { AcceptedEvent, CategorizeBatchPayload, DeadLetterPayload } from '../queue.payloads';

/** What the list shows of a dead letter: bounded, whatever the batch held. */
export interface DeadLetterSummary {
  id: string;
  originalJobId: string;
  events: number;
  /** The first MAX_LISTED_EVENT_IDS event ids of the batch. */
  eventIds: string[];
  failedReason: string;
  attemptsMade: number;
  failedAt: string;
}

/** A dead letter as stored: the summary and the batch to replay. */
export interface DeadLetter {
  projectId: string;
  summary: DeadLetterSummary;
  batch: CategorizeBatchPayload;
}

/** What the worker knows about a job BullMQ gave up on (a structural subset of bullmq's Job). */
export interface FailedJob {
  id?: string;
  data: CategorizeBatchPayload;
  failedReason?: string;
  attemptsMade: number;
  finishedOn?: number;
}

export interface RefusedEvent {
  event: AcceptedEvent;
  reason: string;
}

export const MAX_LISTED_EVENT_IDS = 20;
const MAX_REASON_CHARS = 2000;

/**
 * A job BullMQ failed for any reason: its processor threw on the last attempt, it stalled past the limit (the worker
 * died on it, again and again), or BullMQ refused it. Its id depends on the job alone, so parking it twice is once.
 */
export function deadLetterOfFailedJob(job: FailedJob, now: Date): DeadLetter {
  const jobId = job.id ?? 'unknown';
  return {
    projectId: job.data.projectId,
    batch: job.data,
    summary: summarize(`${jobId}-failed`, jobId, job.data.events, {
      failedReason: job.failedReason || 'failed without a reason',
      attemptsMade: job.attemptsMade,
      failedAt: new Date(job.finishedOn ?? now.getTime()).toISOString(),
    }),
  };
}

/**
 * The events of a batch the database refused, one by one, while the rest was stored. The id names the set of events,
 * so a retried job that refuses the same events parks them once.
 */
export function deadLetterOfRefusedEvents(jobId: string, batch: CategorizeBatchPayload, refused: RefusedEvent[], now: Date): DeadLetter {
  const events = refused.map((r) => r.event);
  const eventsHash = createHash('sha256')
    .update(events.map((e) => e.id).join('\u0000'))
    .digest('hex')
    .slice(0, 12);
  const reasons = [...new Set(refused.map((r) => r.reason))];
  return {
    projectId: batch.projectId,
    batch: { ...batch, events },
    summary: summarize(`${jobId}-refused-${eventsHash}`, jobId, events, {
      failedReason: reasons.join('; '),
      attemptsMade: 1,
      failedAt: now.toISOString(),
    }),
  };
}

/** An entry of the BullMQ `dead-letter` queue older versions kept; it keeps its id. */
export function deadLetterOfLegacyJob(jobId: string, payload: DeadLetterPayload): DeadLetter {
  return {
    projectId: payload.projectId,
    batch: payload.data,
    summary: summarize(jobId, payload.originalJobId, payload.data.events, payload),
  };
}

function summarize(
  id: string,
  originalJobId: string,
  events: readonly AcceptedEvent[],
  failure: { failedReason: string; attemptsMade: number; failedAt: string },
): DeadLetterSummary {
  return {
    id,
    originalJobId,
    events: events.length,
    eventIds: events.slice(0, MAX_LISTED_EVENT_IDS).map((e) => e.id),
    failedReason: failure.failedReason.slice(0, MAX_REASON_CHARS),
    attemptsMade: failure.attemptsMade,
    failedAt: failure.failedAt,
  };
}

/** True when a failed job's data is a batch the store can file under its project and replay. */
export function isParkableBatch(data: unknown): data is CategorizeBatchPayload {
  const batch = data as Partial<CategorizeBatchPayload> | null;
  return typeof batch?.projectId === 'string' && batch.projectId.length > 0 && Array.isArray(batch.events);
}
