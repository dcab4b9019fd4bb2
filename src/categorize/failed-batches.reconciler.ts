import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { Job } from 'bullmq';
import { Logger } from 'pino';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { isParkableBatch } from '../infra/queue/dead-letters/dead-letter.entry';
import { DeadLetterService } from '../infra/queue/dead-letters/dead-letter.service';
import { AcceptedEvent, CategorizeBatchPayload, DeadLetterPayload } from '../infra/queue/queue.payloads';
import { QueueProducer } from '../infra/queue/queue.producer';
import { CategorizeRepository } from './categorize.repository';
import { COLUMN_CHARS, columnText } from './column-text';

/** Failed jobs are read a few at a time: each holds a whole batch (up to the 1 MB request body). */
const PAGE_SIZE = 10;
/** The worker's 'failed' event starts a pass at once; this catches what a crashed or other process failed. */
const INTERVAL_MS = 30_000;
/** A pass that could not reach Redis or Postgres (e.g. right after boot) is retried after this, doubling up to INTERVAL_MS. */
const FIRST_RETRY_MS = 1000;

export interface ReconcileResult {
  parked: number;
  /** Failed jobs an older version had already dead-lettered under their job id (moved from its queue): removed. */
  parkedBefore: number;
  /** Failed jobs whose events had all been stored (a worker died after its commit): removed, nothing to park. */
  alreadyStored: number;
  legacy: number;
  skipped: number;
}

/**
 * Keeps the accounting invariant for batches BullMQ gives up on by itself: a processor that threw on the last attempt,
 * a job that stalled past the limit because the worker died on it (or beside a job that killed it), any failure the
 * processor never saw. Each failed job of the events queue is parked as a dead letter of its project, holding the
 * events that are not stored, and only then removed from BullMQ's failed set: a crash in between parks it again, which
 * the store ignores (idempotent by job id), so nothing is lost or doubled.
 * On start it also moves what older versions left in the BullMQ `dead-letter` queue into the store.
 */
@Injectable()
export class FailedBatchesReconciler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger: Logger;
  private timer?: NodeJS.Timeout;
  private running: Promise<void> | null = null;
  private isRequestedAgain = false;
  private isStopping = false;
  private retryMs = FIRST_RETRY_MS;

  constructor(
    private readonly producer: QueueProducer,
    private readonly deadLetters: DeadLetterService,
    private readonly repository: CategorizeRepository,
    @Inject(ROOT_LOGGER) rootLogger: Logger,
  ) {
    this.logger = rootLogger.child({ context: 'FailedBatchesReconciler' });
  }

  onApplicationBootstrap() {
    this.reconcileSoon();
    this.timer = setInterval(() => this.reconcileSoon(), INTERVAL_MS).unref();
  }

  /** Runs a pass now, or once more right after the running one: failures come in bursts. */
  reconcileSoon(): void {
    if (this.isStopping) return;
    if (this.running) {
      this.isRequestedAgain = true;
      return;
    }
    this.running = this.reconcile()
      .then((result) => {
        this.retryMs = FIRST_RETRY_MS;
        if (result.parked + result.parkedBefore + result.alreadyStored + result.legacy > 0)
          this.logger.info(result, 'failed batches reconciled');
      })
      .catch((error: unknown) => {
        this.logger.warn({ err: String(error), retryMs: this.retryMs }, 'failed batches could not be parked yet; retrying');
        setTimeout(() => this.reconcileSoon(), this.retryMs).unref();
        this.retryMs = Math.min(this.retryMs * 2, INTERVAL_MS);
      })
      .finally(() => {
        this.running = null;
        if (this.isRequestedAgain) {
          this.isRequestedAgain = false;
          this.reconcileSoon();
        }
      });
  }

  /** One pass over the failed set of the events queue and the legacy dead-letter queue. */
  async reconcile(): Promise<ReconcileResult> {
    const result: ReconcileResult = { parked: 0, parkedBefore: 0, alreadyStored: 0, legacy: 0, skipped: 0 };
    // first, so a failed job an older version dead-lettered as well is recognised below
    result.legacy = await this.drainLegacyQueue();
    for (;;) {
      const jobs = await this.producer.events.getFailed(result.skipped, result.skipped + PAGE_SIZE - 1);
      if (jobs.length === 0) break;
      for (const job of jobs) result[await this.parkFailedJob(job)] += 1;
    }
    return result;
  }

  private async parkFailedJob(job: Job | undefined): Promise<'parked' | 'parkedBefore' | 'alreadyStored' | 'skipped'> {
    if (!job?.id) return 'skipped';
    if (!isParkableBatch(job.data)) {
      this.logger.error({ jobId: job.id, name: job.name }, 'failed job holds no batch of a project; left in the failed set');
      return 'skipped';
    }
    // older versions dead-lettered a batch under its own job id and kept the failed job too
    if (await this.deadLetters.wasParked(job.data.projectId, job.id)) {
      await this.producer.events.remove(job.id);
      return 'parkedBefore';
    }
    const batch = await this.withoutSettledEvents(job.data, job.id);
    if (batch.events.length > 0) {
      const failure = {
        id: job.id,
        data: batch,
        failedReason: job.failedReason,
        attemptsMade: job.attemptsMade,
        finishedOn: job.finishedOn,
      };
      if (await this.deadLetters.parkFailedJob(failure)) {
        this.logger.warn(
          { jobId: job.id, projectId: batch.projectId, events: batch.events.length, reason: job.failedReason },
          'failed batch dead-lettered',
        );
      }
    }
    await this.producer.events.remove(job.id);
    return batch.events.length > 0 ? 'parked' : 'alreadyStored';
  }

  /**
   * A worker that died after its commit leaves a failed job whose events are stored, and a job whose lock lapsed while
   * it ran may have parked its refused events already: neither kind is dead-lettered (again).
   */
  private async withoutSettledEvents(batch: CategorizeBatchPayload, jobId: string): Promise<CategorizeBatchPayload> {
    const [storedIds, parkedIds] = await Promise.all([
      this.repository.findStoredEventIds(
        batch.projectId,
        batch.events.map((event) => columnText(event.id, COLUMN_CHARS.eventId)),
      ),
      this.deadLetters.parkedEventIds(batch.projectId, jobId),
    ]);
    const isSettled = (event: AcceptedEvent) => parkedIds.has(event.id) || storedIds.has(columnText(event.id, COLUMN_CHARS.eventId));
    return { ...batch, events: batch.events.filter((event) => !isSettled(event)) };
  }

  private async drainLegacyQueue(): Promise<number> {
    let moved = 0;
    let skipped = 0;
    for (;;) {
      const jobs = (await this.producer.deadLetters.getJobs(
        ['waiting', 'delayed', 'prioritized'],
        skipped,
        skipped + PAGE_SIZE - 1,
      )) as Array<Job<DeadLetterPayload> | undefined>;
      if (jobs.length === 0) return moved;
      for (const job of jobs) {
        if (!job?.id || !isParkableBatch(job.data?.data)) {
          skipped += 1;
          continue;
        }
        await this.deadLetters.parkLegacyEntry(job.id, job.data);
        await this.producer.deadLetters.remove(job.id);
        moved += 1;
      }
    }
  }

  async beforeApplicationShutdown() {
    this.isStopping = true;
    clearInterval(this.timer);
    await this.running;
  }
}
