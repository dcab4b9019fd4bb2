/**
 * Queue and job names are a persisted contract: jobs already in Redis carry them. Renaming one needs a migration plan
 * (drain the old queue with the old name first).
 */
export enum QueueName {
  Events = 'events',
  /** Nightly analytics runs: the scheduler's one job per day, and the runs of one project asked for through the API. */
  Analytics = 'analytics',
  /**
   * Where versions before the per-project dead-letter store (infra/queue/dead-letters) parked failed jobs. Nothing
   * adds to it any more; the worker moves what it finds into the store on start. Has no worker.
   */
  DeadLetter = 'dead-letter',
  /**
   * Alert notifications to the projects' destinations (webhooks, Slack), one job per notification and destination, and
   * the recurring evaluation of the alert rules.
   */
  Alerts = 'alerts',
  /**
   * Partition maintenance and retention, worked by the scheduler role itself: it must not wait behind a backlog of
   * event batches, nor on a worker being up.
   */
  Maintenance = 'maintenance',
}

export enum JobName {
  CategorizeBatch = 'categorize-batch',
  NightlyRun = 'nightly-run',
  NightlyProjectRun = 'nightly-project-run',
  AlertDelivery = 'alert-delivery',
  /** Recurring (queue.schedules.ts): enqueues yesterday's nightly-run. */
  NightlySchedule = 'nightly-schedule',
  /** Recurring: evaluates the alert rules for the window it falls in. */
  AlertEvaluation = 'alert-evaluation',
  /** Recurring: creates the coming days' event partitions and drops what is past its retention. */
  RetentionMaintenance = 'retention-maintenance',
}
