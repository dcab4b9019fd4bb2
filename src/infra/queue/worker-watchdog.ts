/** How often each queue worker's progress is checked against its queue's backlog. */
export const WATCHDOG_INTERVAL_MS = 5_000;

/** What a worker has shown of itself: jobs it runs now, and when it last took, finished or ran out of jobs. */
export interface WorkerProgress {
  inFlight: number;
  lastProgressAt: number;
}

/** What waits in the worker's queue. */
export interface QueueBacklog {
  waiting: number;
  isPaused: boolean;
}

/**
 * A worker is stuck when jobs wait in its unpaused queue while it runs none and has shown no progress for
 * `stuckAfterMs`: BullMQ's worker can stay blocked on a connection that never recovered after its Redis node
 * restarted (taskforcesh/bullmq issues 648, 2964, 3088), and only a new worker on a new connection takes jobs again.
 * A worker busy with a long job (the nightly) is never stuck; a queue paused on purpose never makes one. Pure.
 */
export function isStuck(progress: WorkerProgress, backlog: QueueBacklog, now: number, stuckAfterMs: number): boolean {
  return (
    stuckAfterMs > 0 && !backlog.isPaused && backlog.waiting > 0 && progress.inFlight === 0 && now - progress.lastProgressAt >= stuckAfterMs
  );
}

/** Keeps a worker's progress from its BullMQ events. */
export function trackProgress(
  worker: { on(event: 'active' | 'completed' | 'failed' | 'drained', listener: () => void): unknown },
  now: () => number = Date.now,
): WorkerProgress {
  const progress: WorkerProgress = { inFlight: 0, lastProgressAt: now() };
  worker.on('active', () => {
    progress.inFlight += 1;
    progress.lastProgressAt = now();
  });
  const settled = () => {
    progress.inFlight = Math.max(0, progress.inFlight - 1);
    progress.lastProgressAt = now();
  };
  worker.on('completed', settled);
  worker.on('failed', settled);
  worker.on('drained', () => {
    progress.lastProgressAt = now();
  });
  return progress;
}
