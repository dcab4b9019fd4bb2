import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Logger } from 'pino';
import { ROOT_LOGGER } from '../../logging/logging.module';
import { JobName } from '../queue.names';
import { CategorizeBatchPayload, DeadLetterPayload } from '../queue.payloads';
import { QueueProducer } from '../queue.producer';
import {
  deadLetterOfFailedJob,
  deadLetterOfLegacyJob,
  deadLetterOfRefusedEvents,
  DeadLetter,
  DeadLetterSummary,
  FailedJob,
  RefusedEvent,
} from './dead-letter.entry';
import { DeadLetterPage, DeadLetterRepository } from './dead-letter.repository';

/** Redis did not answer (or refused) a dead-letter call; nothing was changed that the caller must undo. */
export class DeadLettersUnavailableError extends Error {}

export type ReplayOutcome =
  | { outcome: 'replayed'; replayedAs: string }
  | { outcome: 'in-progress' }
  | { outcome: 'already-replayed'; replayedAs: string }
  | { outcome: 'missing' };

export interface DeadLetterListPage extends Omit<DeadLetterPage, 'items'> {
  items: DeadLetterSummary[];
  /** Score of the last item when there is a next page. */
  nextBefore: string | null;
}

/**
 * Every accepted event the worker could not store ends here, filed under its project: batches BullMQ failed (parked
 * by the worker's FailedBatchesReconciler) and single events the database refused (parked while the rest is stored).
 */
@Injectable()
export class DeadLetterService {
  private readonly logger: Logger;

  constructor(
    private readonly repository: DeadLetterRepository,
    private readonly producer: QueueProducer,
    @Inject(ROOT_LOGGER) rootLogger: Logger,
  ) {
    this.logger = rootLogger.child({ context: 'DeadLetterService' });
  }

  /** Parks the events of a job BullMQ failed that the job did not park before; a second call changes nothing. */
  async parkFailedJob(job: FailedJob, now = new Date()): Promise<boolean> {
    return this.parkOnce(
      job.data.events,
      (event) => event.id,
      (events) => deadLetterOfFailedJob({ ...job, data: { ...job.data, events } }, now),
      now,
    );
  }

  /** Parks the events of a batch the database refused (the rest of the batch is stored), unless parked before. */
  async parkRefusedEvents(jobId: string, batch: CategorizeBatchPayload, refused: RefusedEvent[], now = new Date()): Promise<void> {
    await this.parkOnce(
      refused,
      (r) => r.event.id,
      (left) => deadLetterOfRefusedEvents(jobId, batch, left, now),
      now,
    );
  }

  /** Events of the job parked so far (as refused, or in its failed entry): a reconciliation leaves them out. */
  parkedEventIds(projectId: string, jobId: string): Promise<Set<string>> {
    return this.repository.parkedEventIds(projectId, jobId);
  }

  /**
   * Parks the entry of `items` less the events its job parked before under another id, so an event of a job is parked
   * once whichever way gets there first: the run that found it refused, or the reconciliation of the job BullMQ failed
   * (while that run still went on past its lock, or after its park's answer timed out). True when an entry was stored.
   */
  private async parkOnce<T>(items: T[], eventIdOf: (item: T) => string, letterOf: (items: T[]) => DeadLetter, now: Date): Promise<boolean> {
    let left = items;
    while (left.length > 0) {
      const parked = await this.repository.park(letterOf(left), now);
      if (parked.outcome !== 'events-parked') return parked.outcome === 'parked';
      left = left.filter((item) => !parked.eventIds.has(eventIdOf(item)));
    }
    return false;
  }

  /** Moves an entry of the BullMQ `dead-letter` queue of older versions into the store, under its old id. */
  async parkLegacyEntry(jobId: string, payload: DeadLetterPayload, now = new Date()): Promise<boolean> {
    return (await this.repository.park(deadLetterOfLegacyJob(jobId, payload), now)).outcome === 'parked';
  }

  async wasParked(projectId: string, id: string): Promise<boolean> {
    return this.repository.wasParked(projectId, id);
  }

  async list(projectId: string, limit: number, before: string | null): Promise<DeadLetterListPage> {
    const page = await this.unlessUnavailable(() => this.repository.page(projectId, limit, before, new Date()));
    const items = page.items.slice(0, limit);
    return {
      ...page,
      items: items.map(({ score: _score, ...summary }) => summary),
      nextBefore: page.items.length > limit ? items[items.length - 1].score : null,
    };
  }

  /**
   * Puts a dead letter's batch back on the events queue as a new job. The entry is claimed atomically first, so of
   * concurrent replays exactly one queues a job; it leaves the store only once its job is queued.
   */
  async replay(projectId: string, id: string): Promise<ReplayOutcome> {
    const token = randomUUID();
    const claim = await this.unlessUnavailable(() => this.repository.claim(projectId, id, token));
    if (claim.outcome === 'in-progress' || claim.outcome === 'missing') return { outcome: claim.outcome };
    if (claim.outcome === 'replayed') return { outcome: 'already-replayed', replayedAs: claim.replayedAs };
    const replayedAs = `replay-${token}`;
    try {
      await this.producer.enqueue(JobName.CategorizeBatch, claim.batch, replayedAs);
    } catch (error) {
      // not awaited: the answer must not wait on a Redis that just failed; an unreleased claim lapses after 30 s
      void this.repository.releaseClaim(projectId, id, token).catch(() => undefined);
      throw new DeadLettersUnavailableError(`could not queue the replay: ${String(error)}`);
    }
    // the job is queued: the replay happened even if removing the entry fails (its claim then lapses, the entry stays)
    await this.repository.finishReplay(projectId, id, token, replayedAs).catch((error: unknown) => {
      this.logger.warn({ projectId, id, replayedAs, err: String(error) }, 'replayed dead letter could not be removed');
    });
    return { outcome: 'replayed', replayedAs };
  }

  private async unlessUnavailable<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw new DeadLettersUnavailableError(error instanceof Error ? error.message : String(error));
    }
  }
}
