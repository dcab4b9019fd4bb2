import type { RepeatOptions } from 'bullmq';
import { AppConfig } from '../../config/config';
import { JobName } from './queue.names';

export type RecurringJobName = JobName.NightlySchedule | JobName.AlertEvaluation | JobName.RetentionMaintenance;

export type Repeat = Pick<RepeatOptions, 'pattern' | 'tz' | 'every' | 'immediately'>;

/**
 * Every periodic task of the app, as a BullMQ job scheduler of that job's name (RecurringJobs): Redis holds one
 * schedule per name however many scheduler replicas upsert it, and each occurrence is one job that one worker runs.
 * The failed-batch reconciler stays apart (docs/jobs.md).
 */
export const SCHEDULES: { [N in RecurringJobName]: (config: AppConfig) => Repeat } = {
  [JobName.NightlySchedule]: (config) => ({ pattern: config.nightlyCron, tz: config.nightlyTimeZone }),
  // each window is evaluated once between the workers however often the job runs (AlertEvaluationService)
  [JobName.AlertEvaluation]: (config) => ({ every: config.alertEvaluationIntervalMs }),
  // and once when a scheduler starts: tomorrow's partitions must not wait for the next tick after a deployment
  [JobName.RetentionMaintenance]: (config) => ({ pattern: config.retentionCron, tz: 'UTC', immediately: true }),
};
