import { Inject, Injectable, OnApplicationBootstrap, BeforeApplicationShutdown } from '@nestjs/common';
import { Job, UnrecoverableError } from 'bullmq';
import { Logger } from 'pino';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { payloadOf } from '../infra/queue/queue.jobs';
import { JobName, QueueName } from '../infra/queue/queue.names';
import { QueueWorkers } from '../infra/queue/queue-worker';
import { parseDay } from './analytics-day';
import { NightlyService } from './nightly.service';
import { isUuid } from '../infra/http/storable-values';

/** Runs the nightly jobs, one at a time per worker process: the scheduler's (every project) and those the API queued. */
@Injectable()
export class NightlyProcessor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger: Logger;

  constructor(
    @Inject(ROOT_LOGGER) rootLogger: Logger,
    private readonly nightly: NightlyService,
    private readonly workers: QueueWorkers,
  ) {
    this.logger = rootLogger.child({ context: 'NightlyProcessor' });
  }

  onApplicationBootstrap() {
    this.workers.start(
      this.logger,
      QueueName.Analytics,
      (job: Job<unknown>) => this.process(job),
      {
        concurrency: 1,
        // a day of analytics may take minutes on a large project
        lockDuration: 5 * 60_000,
      },
      (job, error) => this.recordGivenUp(job, error),
    );
  }

  async process(job: Job<unknown>) {
    if (job.name === JobName.NightlyProjectRun) {
      const { runId, projectId, day } = payloadOf(JobName.NightlyProjectRun, job);
      return this.nightly.runQueuedRun(runId, projectId, dayOf(day));
    }
    await this.nightly.runForAllProjects(dayOf(payloadOf(JobName.NightlyRun, job).day), 'schedule');
  }

  /**
   * A run people asked for whose job failed for good, outside the run's own bookkeeping (its worker died and the job
   * stalled past the limit, or the payload can never run): its run is recorded failed, so GET /v1/jobs/:id and a
   * polling client see an outcome instead of `queued` or `running` for good.
   */
  private recordGivenUp(job: Job<unknown> | undefined, error: Error) {
    if (job?.name !== JobName.NightlyProjectRun || !isFinallyFailed(job)) return;
    const { runId, projectId } = (job.data ?? {}) as { runId?: unknown; projectId?: unknown };
    // a run is found by its project and id; a payload without both never came from the API and has no run to record
    if (typeof runId !== 'string' || !isUuid(runId) || typeof projectId !== 'string' || !isUuid(projectId)) return;
    this.nightly.recordGivenUpRun(projectId, runId, `the queue gave up on this run: ${error.message}`).catch((recordError: unknown) => {
      this.logger.warn({ projectId, runId, err: String(recordError) }, 'could not record a given-up nightly run');
    });
  }

  async beforeApplicationShutdown() {
    await this.workers.closeAll();
  }
}

/** BullMQ emits `failed` for attempts it will retry too; a job that will not run again has its finishedOn set. */
function isFinallyFailed(job: Job<unknown>): boolean {
  return Boolean(job.finishedOn) || job.attemptsMade >= (job.opts.attempts ?? 1);
}

/** A pattern-valid day that is not on the calendar (2026-02-30) can never run either. */
function dayOf(text: string): Date {
  const day = parseDay(text);
  if (!day) throw new UnrecoverableError(`invalid day ${text}`);
  return day;
}
