import { UnrecoverableError, type JobsOptions } from 'bullmq';
import { AppConfig } from '../../config/config';
import { ajvFor } from '../validation/ajv-factory';
import { JobName, QueueName } from './queue.names';
import { JobPayloads, PAYLOAD_SCHEMAS } from './queue.payloads';

// What each job is: the queue it goes on and the options it is added with; the JSON Schema its payload meets is in
// queue.payloads.ts, with the payload's type derived from it. The producer adds by this table and the workers check
// `job.data` against that schema at run time, because a payload in Redis may have been written by another version of
// the code (or by hand) and a payload that can never succeed must fail at once (UnrecoverableError -> dead letter)
// instead of retrying.

export interface JobDefinition<P = unknown> {
  queue: QueueName;
  options: (config: AppConfig) => Omit<JobsOptions, 'jobId' | 'priority'>;
  /** Whose job it is and how much work it carries, for jobs whose queue is shared fairly between owners (FairPriority). */
  fairShareOf?: (payload: P) => { owner: string; events: number };
}

export const JOBS: { [N in JobName]: JobDefinition<JobPayloads[N]> } = {
  [JobName.CategorizeBatch]: {
    queue: QueueName.Events,
    // retries with exponential backoff; finished jobs are trimmed, failed ones kept for the dead-letter reconciler
    options: (config) => ({
      attempts: config.jobAttempts,
      backoff: { type: 'exponential', delay: 500 },
      removeOnComplete: { age: 3600, count: 10000 },
      removeOnFail: false,
    }),
    // one project's flood must not hold another's batches behind it (issue 33)
    fairShareOf: (payload) => ({ owner: payload.projectId, events: payload.events.length }),
  },
  [JobName.NightlyRun]: {
    queue: QueueName.Analytics,
    options: () => ({
      attempts: 3,
      backoff: { type: 'exponential', delay: 60_000 },
      removeOnComplete: { age: 7 * 86400 },
      removeOnFail: false,
    }),
  },
  [JobName.NightlyProjectRun]: {
    queue: QueueName.Analytics,
    // one attempt: the run records its own failure, and the human who asked for it can ask again
    options: () => ({ attempts: 1, removeOnComplete: { age: 7 * 86400 }, removeOnFail: { age: 7 * 86400 } }),
  },
  [JobName.AlertDelivery]: {
    queue: QueueName.Alerts,
    // every attempt is recorded in alert_deliveries, so the queue keeps finished jobs only briefly
    options: (config) => ({
      attempts: config.alertDeliveryAttempts,
      backoff: { type: 'exponential', delay: config.alertDeliveryBackoffMs },
      removeOnComplete: { age: 86400 },
      removeOnFail: { age: 7 * 86400 },
    }),
  },
  // recurring jobs (queue.schedules.ts): one attempt, the next occurrence is the retry; a few kept to look at
  [JobName.NightlySchedule]: { queue: QueueName.Analytics, options: recurringJobOptions },
  [JobName.AlertEvaluation]: { queue: QueueName.Alerts, options: recurringJobOptions },
  [JobName.RetentionMaintenance]: { queue: QueueName.Maintenance, options: recurringJobOptions },
};

function recurringJobOptions(): Omit<JobsOptions, 'jobId' | 'priority'> {
  return { attempts: 1, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } };
}

const validators = new Map(Object.values(JobName).map((name) => [name, ajvFor('body').compile(PAYLOAD_SCHEMAS[name])] as const));

/**
 * The job's payload, typed. A job of another name or with a payload its schema refuses can never succeed: it throws
 * UnrecoverableError, so BullMQ fails it at once (and a failed batch is dead-lettered) instead of retrying it.
 */
export function payloadOf<N extends JobName>(name: N, job: { name: string; data: unknown }): JobPayloads[N] {
  if (job.name !== name) throw new UnrecoverableError(`unknown job name ${job.name}`);
  const validate = validators.get(name)!;
  if (validate(job.data)) return job.data as JobPayloads[N];
  const problems = (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? 'is invalid'}`);
  throw new UnrecoverableError(`invalid ${name} payload: ${problems.join('; ')}`);
}
