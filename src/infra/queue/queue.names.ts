/**
 * Queue and job names are a persisted contract: jobs already in Redis carry them. Renaming one needs a migration plan
 * (drain the old queue with the old name first).
 */
export enum QueueName {
  Events = 'events',
  /** Nightly analytics runs: one job per day, enqueued by the scheduler, run by a worker. */
  Analytics = 'analytics',
  /** Jobs of any queue that failed their last attempt; kept until replayed. Has no worker. */
  DeadLetter = 'dead-letter',
}

export enum JobName {
  CategorizeBatch = 'categorize-batch',
  NightlyRun = 'nightly-run',
}
