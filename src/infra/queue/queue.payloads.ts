import type { ToolEvent } from '@toolcoach/core';
import { JobName, QueueName } from './queue.names';

/** An event as accepted by the API: the wire's event (@toolcoach/core), validated, defaults applied, oversize fields truncated. */
export type AcceptedEvent = ToolEvent & { id: string; occurredAt: string };

export interface CategorizeBatchPayload {
  projectId: string;
  receivedAt: string;
  events: AcceptedEvent[];
}

/** What a job of the legacy `dead-letter` queue holds: the original job, so it can be replayed as it was. */
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

export interface NightlyRunPayload {
  /** The UTC day to compute, YYYY-MM-DD. */
  day: string;
}

/** One project's run asked for through the API; its job_runs row (`runId`) was created, queued, by the request. */
export interface NightlyProjectRunPayload {
  projectId: string;
  /** The UTC day to compute, YYYY-MM-DD. */
  day: string;
  runId: string;
}

/** One notification to one destination; every attempt reads the destination again (it may be paused or deleted). */
export interface AlertDeliveryPayload {
  projectId: string;
  destinationId: string;
  incidentId: string | null;
  /** opened, resolved or rollout */
  event: string;
  /** The notification as documented in docs/alerts.md; rendered per destination kind when it is sent. */
  notification: Record<string, unknown>;
}

/** One type map from job name to payload: producers and processors agree through it (and through queue.jobs.ts). */
export interface JobPayloads {
  [JobName.CategorizeBatch]: CategorizeBatchPayload;
  [JobName.NightlyRun]: NightlyRunPayload;
  [JobName.NightlyProjectRun]: NightlyProjectRunPayload;
  [JobName.AlertDelivery]: AlertDeliveryPayload;
}
