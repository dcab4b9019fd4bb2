import { Inject, Injectable } from '@nestjs/common';
import { Logger } from 'pino';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { AdvisoryLocks } from '../infra/locks/advisory-lock';
import { formatDay } from './analytics-day';
import { DailyStatsRepository } from './daily-stats.repository';
import { JobRunRepository } from './job-run.repository';
import { NightlyDayService } from './nightly-day.service';

export const NIGHTLY_JOB = 'nightly';
/** How long a run waits for a project another run holds (a run takes seconds to minutes). */
const LOCK_WAIT_MS = 5 * 60_000;
const LOCK_RETRY_MS = 5000;
export class NightlyAlreadyRunningError extends Error {}

/** One project's nightly runs exclude each other, whatever their day or trigger. */
export function nightlyLockName(projectId: string): string {
  return `toolcoach:${NIGHTLY_JOB}:${projectId}`;
}

/**
 * The nightly's runs: every project's scheduled run and the runs the API queued, one at a time per project (an advisory
 * lock), each recorded in job_runs as it starts and finishes; NightlyDayService computes the day itself.
 */
@Injectable()
export class NightlyService {
  private readonly logger: Logger;

  constructor(
    private readonly dailyStats: DailyStatsRepository,
    private readonly jobRuns: JobRunRepository,
    private readonly locks: AdvisoryLocks,
    private readonly nightlyDay: NightlyDayService,
    @Inject(ROOT_LOGGER) rootLogger: Logger,
  ) {
    this.logger = rootLogger.child({ context: 'NightlyService' });
  }

  /**
   * Runs every project for `day` (the scheduled job). A project whose lock another run holds is tried again after the
   * others, for up to `lockWaitMs`; one that still cannot run is recorded as a skipped run and logged as an error.
   */
  async runForAllProjects(day: Date, trigger: string, lockWaitMs = LOCK_WAIT_MS): Promise<void> {
    let busy: string[] = [];
    for (const projectId of await this.dailyStats.findProjectIds()) {
      if (!(await this.runUnlessBusy(projectId, day, trigger))) busy.push(projectId);
    }
    const deadline = Date.now() + lockWaitMs;
    while (busy.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(LOCK_RETRY_MS, lockWaitMs)));
      const stillBusy: string[] = [];
      for (const projectId of busy) if (!(await this.runUnlessBusy(projectId, day, trigger))) stillBusy.push(projectId);
      busy = stillBusy;
    }
    for (const projectId of busy) await this.recordSkippedRun(projectId, day, trigger, lockWaitMs);
  }

  /** False when another run holds the project's lock; any other failure is logged (and recorded by the run itself). */
  private async runUnlessBusy(projectId: string, day: Date, trigger: string): Promise<boolean> {
    try {
      await this.runForProject(projectId, day, trigger);
    } catch (error) {
      if (error instanceof NightlyAlreadyRunningError) return false;
      this.logger.error({ projectId, day: formatDay(day), err: (error as Error).message }, 'nightly run failed');
    }
    return true;
  }

  private async recordSkippedRun(projectId: string, day: Date, trigger: string, lockWaitMs: number) {
    const reason = skippedReason(lockWaitMs);
    this.logger.error({ projectId, day: formatDay(day), trigger }, `nightly run ${reason}`);
    try {
      const runId = await this.jobRuns.insertRunningRun(projectId, NIGHTLY_JOB, day, trigger);
      await this.jobRuns.finishRun(projectId, runId, 'skipped', null, reason);
    } catch (error) {
      this.logger.error({ projectId, day: formatDay(day), err: (error as Error).message }, 'could not record the skipped nightly run');
    }
  }

  /**
   * The scheduled run of one project: recorded as it starts; re-running a day replaces what that day produced.
   * Everything after the lock is taken runs inside the try whose finally frees it: a run that fails anywhere never
   * leaves the project locked.
   */
  private async runForProject(projectId: string, day: Date, trigger: string): Promise<void> {
    const lock = await this.locks.tryAcquire(nightlyLockName(projectId));
    if (!lock) throw new NightlyAlreadyRunningError('the nightly job of this project is already running');
    try {
      await this.computeRun(await this.jobRuns.insertRunningRun(projectId, NIGHTLY_JOB, day, trigger), projectId, day);
    } finally {
      await lock.release();
    }
  }

  /**
   * Runs a run the API queued (NightlyRunsService), once its project is free: it waits up to `lockWaitMs` for a run
   * holding the project's lock, then records itself skipped. A run that already has an outcome is not run again.
   */
  async runQueuedRun(runId: string, projectId: string, day: Date, lockWaitMs = LOCK_WAIT_MS): Promise<void> {
    const lock = await this.waitForLock(projectId, lockWaitMs);
    if (!lock) {
      const reason = skippedReason(lockWaitMs);
      this.logger.error({ projectId, day: formatDay(day), runId }, `nightly run ${reason}`);
      await this.jobRuns.finishRun(projectId, runId, 'skipped', null, reason);
      return;
    }
    try {
      let isStarted = false;
      try {
        isStarted = await this.jobRuns.startQueuedRun(projectId, runId);
      } catch (error) {
        await this.jobRuns.finishRun(projectId, runId, 'failed', null, (error as Error).message.slice(0, 2000));
        throw error;
      }
      if (isStarted) await this.computeRun(runId, projectId, day);
    } finally {
      await lock.release();
    }
  }

  /** Records a queued run failed when its job failed for good outside computeRun; a run with an outcome keeps it. */
  async recordGivenUpRun(projectId: string, runId: string, reason: string): Promise<void> {
    if (await this.jobRuns.failUnfinishedRun(projectId, runId, reason)) {
      this.logger.error({ projectId, runId, reason }, 'nightly run given up by the queue');
    }
  }

  private async waitForLock(projectId: string, lockWaitMs: number) {
    const deadline = Date.now() + lockWaitMs;
    let lock = await this.locks.tryAcquire(nightlyLockName(projectId));
    while (!lock && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(LOCK_RETRY_MS, lockWaitMs)));
      lock = await this.locks.tryAcquire(nightlyLockName(projectId));
    }
    return lock;
  }

  /** Computes the day for a run already marked running, and records its outcome. */
  private async computeRun(runId: string, projectId: string, day: Date): Promise<void> {
    try {
      const counts = await this.nightlyDay.computeDay(projectId, day);
      this.logger.info({ projectId, day: formatDay(day), ...counts }, 'nightly run finished');
      await this.jobRuns.finishRun(projectId, runId, 'succeeded', counts, null);
    } catch (error) {
      await this.jobRuns.finishRun(projectId, runId, 'failed', null, (error as Error).message.slice(0, 2000));
      throw error;
    }
  }
}

/** Why a run that waited `lockWaitMs` for its project's lock in vain did not run (the scheduled and the queued alike). */
function skippedReason(lockWaitMs: number): string {
  return `skipped: another run of this project held its lock for the ${lockWaitMs} ms this run waited`;
}
