import { DelayedError, Job } from 'bullmq';
import { Logger } from 'pino';

/** How the processor is asked to run a job: alone means nothing else of this process is in flight beside it. */
export interface JobRun {
  isAlone: boolean;
  /** The worker's lock token of the job, for a processor that moves the job back itself. */
  token: string | undefined;
}

/** What the isolation needs of the worker: to stop taking jobs while a suspect runs, and to take them again after. */
export interface PausableWorker {
  pause(doNotWaitActive: boolean): Promise<void>;
  resume(): Promise<void>;
}

/** A job put aside while a suspect runs alone comes back after this long. */
export const PUT_ASIDE_MS = 500;

/**
 * A job that stalled before (the process holding it died) may be what killed that process, and everything that was in
 * flight beside it died too: the batches written in the same group, the jobs of the other slots. Run such a job alone,
 * so if it kills the process again it takes no innocent job with it and its stall count is its own: the worker stops
 * fetching, waits for the jobs in flight to finish, runs the suspect, then fetches again. A job that arrives while a
 * suspect runs (already fetched, or another suspect) is put back as delayed, not held, so it cannot die beside it.
 */
export class StalledJobIsolation<T> {
  private inFlight = 0;
  private isSuspectRunning = false;
  private whenIdle: Array<() => void> = [];

  constructor(
    private readonly worker: () => PausableWorker,
    private readonly logger: Logger,
  ) {}

  async run(job: Job<T>, token: string | undefined, process: (job: Job<T>, run: JobRun) => Promise<unknown>): Promise<unknown> {
    if (this.isSuspectRunning) {
      await job.moveToDelayed(Date.now() + PUT_ASIDE_MS, token);
      throw new DelayedError();
    }
    if (job.stalledCounter > 0) return this.runAlone(job, token, process);
    this.inFlight += 1;
    try {
      return await process(job, { isAlone: false, token });
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const resolve of this.whenIdle.splice(0)) resolve();
    }
  }

  private async runAlone(
    job: Job<T>,
    token: string | undefined,
    process: (job: Job<T>, run: JobRun) => Promise<unknown>,
  ): Promise<unknown> {
    this.isSuspectRunning = true;
    const worker = this.worker();
    try {
      await worker.pause(true);
      if (this.inFlight > 0) await new Promise<void>((resolve) => this.whenIdle.push(resolve));
      this.logger.warn({ jobId: job.id, stalls: job.stalledCounter }, 'a job whose worker died runs alone');
      return await process(job, { isAlone: true, token });
    } finally {
      this.isSuspectRunning = false;
      await worker.resume();
    }
  }
}
