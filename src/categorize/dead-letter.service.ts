import { Injectable } from '@nestjs/common';
import { Job } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { JobName, QueueName } from '../infra/queue/queue.names';
import { AcceptedEvent, CategorizeBatchPayload, DeadLetterPayload } from '../infra/queue/queue.payloads';
import { QueueProducer } from '../infra/queue/queue.producer';

export interface DeadLetterView {
  id: string;
  originalJobId: string;
  events: number;
  failedReason: string;
  attemptsMade: number;
  failedAt: string;
}

const MAX_LISTED = 1000;

/** Jobs that used up their attempts are parked in the dead-letter queue, kept until replayed. */
@Injectable()
export class DeadLetterService {
  constructor(private readonly producer: QueueProducer) {}

  /** Called by the worker when a job's last attempt failed; the job id makes a repeated call harmless. */
  async park(job: Job<CategorizeBatchPayload>, error: Error): Promise<void> {
    await this.producer.enqueueDeadLetter(job.id!, {
      queue: QueueName.Events,
      jobName: JobName.CategorizeBatch,
      originalJobId: job.id!,
      projectId: job.data.projectId,
      data: job.data,
      failedReason: error.message.slice(0, 2000),
      attemptsMade: job.attemptsMade + 1,
      failedAt: new Date().toISOString(),
    });
  }

  /** Parks the events of a batch the database refused; the rest of the batch is stored. */
  async parkEvents(jobId: string, batch: CategorizeBatchPayload, events: AcceptedEvent[], reason: string): Promise<void> {
    const id = `${jobId}-refused`;
    await this.producer.enqueueDeadLetter(id, {
      queue: QueueName.Events,
      jobName: JobName.CategorizeBatch,
      originalJobId: jobId,
      projectId: batch.projectId,
      data: { ...batch, events },
      failedReason: reason.slice(0, 2000),
      attemptsMade: 1,
      failedAt: new Date().toISOString(),
    });
  }

  async list(projectId: string): Promise<DeadLetterView[]> {
    const jobs = (await this.producer.deadLetters.getJobs(['waiting', 'delayed', 'prioritized'], 0, MAX_LISTED - 1)) as Job<DeadLetterPayload>[];
    return jobs
      .filter((job) => job?.data?.projectId === projectId)
      .map((job) => ({
        id: job.id!,
        originalJobId: job.data.originalJobId,
        events: job.data.data.events.length,
        failedReason: job.data.failedReason,
        attemptsMade: job.data.attemptsMade,
        failedAt: job.data.failedAt,
      }));
  }

  /** Puts the batch back on the events queue as a new job; returns false when no such dead letter is the project's. */
  async replay(projectId: string, id: string): Promise<{ replayedAs: string } | null> {
    const job = (await this.producer.deadLetters.getJob(id)) as Job<DeadLetterPayload> | undefined;
    if (!job || job.data?.projectId !== projectId) return null;
    const replayedAs = `replay-${randomUUID()}`;
    await this.producer.enqueueCategorizeBatch(replayedAs, job.data.data);
    await job.remove();
    return { replayedAs };
  }
}
