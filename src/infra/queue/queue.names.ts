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
  /** Alert notifications to the projects' destinations (webhooks, Slack), one job per notification and destination. */
  Alerts = 'alerts',
}

export enum JobName {
  CategorizeBatch = 'categorize-batch',
  NightlyRun = 'nightly-run',
  NightlyProjectRun = 'nightly-project-run',
  AlertDelivery = 'alert-delivery',
}
