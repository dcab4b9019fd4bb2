import type { ToolEvent } from '@toolcoach/core';
import { FromSchema } from '../validation/schema-type';
import { JobName, QueueName } from './queue.names';

// The payload of each job, as the JSON Schema its processor checks `job.data` against (queue.jobs.ts): each type below
// is derived from its schema, so what the code may assume of a payload is what was validated. A payload in Redis is a
// persisted contract too: a new required property needs a plan for the jobs already queued without it.

const DAY_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';

/** An event as accepted by the API: validated, defaults applied, oversize fields truncated. */
const ACCEPTED_EVENT_SCHEMA = {
  type: 'object',
  required: ['id', 'tool', 'status', 'occurredAt'],
  properties: {
    id: { type: 'string', minLength: 1 },
    tool: { type: 'string', minLength: 1 },
    status: { enum: ['success', 'error'] },
    arguments: {},
    result: {},
    error: {
      type: 'object',
      required: ['message'],
      properties: { type: { type: 'string' }, message: { type: 'string' }, stack: { type: 'string' } },
    },
    durationMs: { type: 'number' },
    occurredAt: { type: 'string' },
    agent: { type: 'string' },
    model: { type: 'string' },
    framework: { type: 'string' },
    sessionId: { type: 'string' },
    traceId: { type: 'string' },
    runId: { type: 'string' },
    toolCallId: { type: 'string' },
    descriptionVersion: { type: 'number' },
    prompt: { type: 'string' },
    metadata: { type: 'object' },
    /** The SDK guard corrected the arguments before the tool ran (issue 22). */
    correction: {
      type: 'object',
      required: ['original', 'corrected', 'kinds'],
      properties: { original: {}, corrected: {}, kinds: { type: 'array', items: { type: 'string' } } },
    },
    /** The SDK guard refused the call: the tool never ran. */
    prevented: { type: 'boolean' },
    /**
     * A call reported as a success whose result says it failed (docs/result-failures.md): the rules it matched, read
     * at ingest from the whole result; the worker decides with the project's policy whether it is stored as a failure.
     */
    resultFailure: {
      type: 'object',
      required: ['rules', 'type', 'message'],
      properties: { rules: { type: 'array', items: { type: 'string' } }, type: { type: 'string' }, message: { type: 'string' } },
    },
  },
} as const;

const CATEGORIZE_BATCH_SCHEMA = {
  type: 'object',
  required: ['projectId', 'receivedAt', 'events'],
  properties: {
    projectId: { type: 'string', minLength: 1 },
    receivedAt: { type: 'string', format: 'date-time' },
    events: { type: 'array', minItems: 1, items: ACCEPTED_EVENT_SCHEMA },
  },
} as const;

const NIGHTLY_RUN_SCHEMA = {
  type: 'object',
  required: ['day'],
  // the UTC day to compute, YYYY-MM-DD
  properties: { day: { type: 'string', pattern: DAY_PATTERN } },
} as const;

/** One project's run asked for through the API; its job_runs row (`runId`) was created, queued, by the request. */
const NIGHTLY_PROJECT_RUN_SCHEMA = {
  type: 'object',
  required: ['projectId', 'day', 'runId'],
  properties: {
    projectId: { type: 'string', format: 'uuid' },
    day: { type: 'string', pattern: DAY_PATTERN },
    runId: { type: 'string', format: 'uuid' },
  },
} as const;

/** One notification to one destination; every attempt reads the destination again (it may be paused or deleted). */
const ALERT_DELIVERY_SCHEMA = {
  type: 'object',
  required: ['projectId', 'destinationId', 'incidentId', 'event', 'notification'],
  properties: {
    projectId: { type: 'string', format: 'uuid' },
    destinationId: { type: 'string', format: 'uuid' },
    incidentId: { type: ['string', 'null'] },
    event: { enum: ['opened', 'resolved', 'rollout'] },
    // the notification as documented in docs/alerts.md; rendered per destination kind when it is sent
    notification: { type: 'object' },
  },
} as const;

/** A recurring job's payload (queue.schedules.ts): nothing, it reads the clock when it runs. */
const RECURRING_SCHEMA = { type: 'object', properties: {}, additionalProperties: false } as const;

/** The schema of each job's payload; the events inside a batch were validated in full at ingest, here their shape. */
export const PAYLOAD_SCHEMAS = {
  [JobName.CategorizeBatch]: CATEGORIZE_BATCH_SCHEMA,
  [JobName.NightlyRun]: NIGHTLY_RUN_SCHEMA,
  [JobName.NightlyProjectRun]: NIGHTLY_PROJECT_RUN_SCHEMA,
  [JobName.AlertDelivery]: ALERT_DELIVERY_SCHEMA,
  [JobName.NightlySchedule]: RECURRING_SCHEMA,
  [JobName.AlertEvaluation]: RECURRING_SCHEMA,
  [JobName.RetentionMaintenance]: RECURRING_SCHEMA,
} as const satisfies Record<JobName, object>;

/** One type map from job name to payload: producers and processors agree through it (and through queue.jobs.ts). */
export type JobPayloads = { [N in JobName]: FromSchema<(typeof PAYLOAD_SCHEMAS)[N]> };

export type AcceptedEvent = FromSchema<typeof ACCEPTED_EVENT_SCHEMA>;
export type CategorizeBatchPayload = JobPayloads[JobName.CategorizeBatch];
export type NightlyRunPayload = JobPayloads[JobName.NightlyRun];
export type NightlyProjectRunPayload = JobPayloads[JobName.NightlyProjectRun];
export type AlertDeliveryPayload = JobPayloads[JobName.AlertDelivery];

/** What a job of the legacy `dead-letter` queue holds: the original job, so it can be replayed as it was. No schema: nothing adds to that queue any more. */
export interface DeadLetterPayload {
  queue: QueueName;
  jobName: JobName;
  originalJobId: string;
  projectId: string;
  data: CategorizeBatchPayload;
  failedReason: string;
  attemptsMade: number;
  failedAt: string;
}

/** Compiles only while every accepted event is also a wire event of @toolcoach/core: the two cannot drift apart. */
type AssignableTo<T extends U, U> = T;
export type AcceptedEventIsWireEvent = AssignableTo<AcceptedEvent, ToolEvent>;
