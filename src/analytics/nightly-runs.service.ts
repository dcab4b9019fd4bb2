import { Injectable } from '@nestjs/common';
import { AdvisoryLocks } from '../infra/locks/advisory-lock';
import { JobName } from '../infra/queue/queue.names';
import { QueueProducer, QueueUnavailableError } from '../infra/queue/queue.producer';
import { formatDay } from './analytics-day';
import { JobRun, JobRunRepository } from './job-run.repository';
import { NIGHTLY_JOB, NightlyAlreadyRunningError, nightlyLockName } from './nightly.service';

/** The runs people ask for through the API: queued here, run by the worker (NightlyProcessor), read back by id. */
@Injectable()
export class NightlyRunsService {
  constructor(
    private readonly jobRuns: JobRunRepository,
    private readonly locks: AdvisoryLocks,
    private readonly producer: QueueProducer,
  ) {}

  /**
   * Queues a run of one project and day and answers it, queued. While a run of that day is queued, asking again
   * answers the same run: its job id is its run id, so the job is added once. Throws NightlyAlreadyRunningError when
   * a run of the project holds its lock now (the worker would only wait for it), and QueueUnavailableError.
   */
  async requestRun(projectId: string, day: Date): Promise<JobRun> {
    if (await this.locks.isHeld(nightlyLockName(projectId))) {
      throw new NightlyAlreadyRunningError('the nightly job of this project is already running');
    }
    const { run, isNew } = await this.jobRuns.findOrQueueRun(projectId, NIGHTLY_JOB, day, 'api');
    try {
      // also for a run queued before: if its job was lost with a Redis that failed, this adds it again, else nothing
      await this.producer.enqueue(JobName.NightlyProjectRun, { projectId, day: formatDay(day), runId: run.id }, `nightly-run-${run.id}`);
    } catch (error) {
      if (isNew && error instanceof QueueUnavailableError && !error.mayHaveLanded) {
        await this.jobRuns.finishRun(projectId, run.id, 'failed', null, `not queued: ${error.message}`);
      }
      throw error;
    }
    return run;
  }

  findRun(projectId: string, id: string): Promise<JobRun | null> {
    return this.jobRuns.findRun(projectId, id);
  }

  listRuns(projectId: string, limit: number, before?: { startedAt: Date; id: string }): Promise<JobRun[]> {
    return this.jobRuns.listRuns(projectId, limit, before);
  }
}
