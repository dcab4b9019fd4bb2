import { Inject, Injectable } from '@nestjs/common';
import { Job, UnrecoverableError } from 'bullmq';
import { Logger } from 'pino';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { JobHandler, OnJobFailed } from '../infra/queue/job-handler';
import { JobName } from '../infra/queue/queue.names';
import { NightlyProjectRunPayload, NightlyRunPayload } from '../infra/queue/queue.payloads';
import { parseDay } from './analytics-day';
import { NightlyService } from './nightly.service';
import { isUuid } from '../infra/http/storable-values';

/** Runs the nightly jobs, one at a time per worker process: the scheduler's (every project) and those the API queued. */
@Injectable()
export class NightlyProcessor {
  private readonly logger: Logger;

  constructor(
    @Inject(ROOT_LOGGER) rootLogger: Logger,
    private readonly nightly: NightlyService,
  ) {
    this.logger = rootLogger.child({ context: 'NightlyProcessor' });
  }

  @JobHandler(JobName.NightlyRun)
  async runNightly({ day }: NightlyRunPayload) {
    await this.nightly.runForAllProjects(dayOf(day), 'schedule');
  }

  @JobHandler(JobName.NightlyProjectRun)
  async runProjectRun({ runId, projectId, day }: NightlyProjectRunPayload) {
    await this.nightly.runQueuedRun(runId, projectId, dayOf(day));
  }

  /**
   * A run people asked for whose job failed for good, outside the run's own bookkeeping (its worker died and the job
   * stalled past the limit, or the payload can never run): its run is recorded failed, so GET /v1/jobs/:id and a
   * polling client see an outcome instead of `queued` or `running` for good.
   */
  @OnJobFailed(JobName.NightlyProjectRun)
  recordGivenUp(job: Job, error: Error) {
    if (!isFinallyFailed(job)) return;
    const { runId, projectId } = (job.data ?? {}) as { runId?: unknown; projectId?: unknown };
    // a run is found by its project and id; a payload without both never came from the API and has no run to record
    if (typeof runId !== 'string' || !isUuid(runId) || typeof projectId !== 'string' || !isUuid(projectId)) return;
    this.nightly.recordGivenUpRun(projectId, runId, `the queue gave up on this run: ${error.message}`).catch((recordError: unknown) => {
      this.logger.warn({ projectId, runId, err: String(recordError) }, 'could not record a given-up nightly run');
    });
  }
}

/** BullMQ emits `failed` for attempts it will retry too; a job that will not run again has its finishedOn set. */
function isFinallyFailed(job: Job): boolean {
  return Boolean(job.finishedOn) || job.attemptsMade >= (job.opts.attempts ?? 1);
}

/** A pattern-valid day that is not on the calendar (2026-02-30) can never run either. */
function dayOf(text: string): Date {
  const day = parseDay(text);
  if (!day) throw new UnrecoverableError(`invalid day ${text}`);
  return day;
}
