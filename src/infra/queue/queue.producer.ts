import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import { Redis, ReplyError } from 'ioredis';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { createProducerConnection } from '../redis/redis-connections';
import { JobName, QueueName } from './queue.names';
import { CategorizeBatchPayload, JobPayloads, NightlyRunPayload } from './queue.payloads';

export class QueueUnavailableError extends Error {
  /**
   * False only when Redis certainly holds nothing of it (never sent, or refused with an error reply). A timeout or a
   * dropped connection leaves it unknown: the job may have landed.
   */
  constructor(
    message: string,
    readonly mayHaveLanded: boolean,
  ) {
    super(message);
  }
}

/** Default job options per queue: retries with exponential backoff; finished jobs are trimmed, failed ones kept. */
export function eventsJobOptions(attempts: number) {
  return {
    attempts,
    backoff: { type: 'exponential' as const, delay: 500 },
    removeOnComplete: { age: 3600, count: 10000 },
    removeOnFail: false,
  };
}

/** Short enough that a request waiting on a frozen Redis still answers 503 within 3 s, rate limit check included. */
const ENQUEUE_TIMEOUT_MS = 2000;
const READINESS_TIMEOUT_MS = 1000;

/** The typed producer: the only way the app puts jobs on a queue. */
@Injectable()
export class QueueProducer implements OnModuleDestroy {
  private readonly connection: Redis;
  private readonly eventsQueue: Queue;
  private readonly deadLetterQueue: Queue;
  private readonly analyticsQueue: Queue;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.connection = createProducerConnection(config.redisUrl);
    // An unreachable Redis is reported per request (503), not as an unhandled 'error' event.
    this.connection.on('error', () => undefined);
    const options = { connection: this.connection, prefix: config.queuePrefix };
    this.eventsQueue = new Queue(QueueName.Events, options);
    this.deadLetterQueue = new Queue(QueueName.DeadLetter, options);
    this.analyticsQueue = new Queue(QueueName.Analytics, options);
    for (const queue of [this.eventsQueue, this.deadLetterQueue, this.analyticsQueue]) queue.on('error', () => undefined);
  }

  /** Resolves once Redis has the job; rejects with QueueUnavailableError when it cannot be queued. */
  async enqueueCategorizeBatch(jobId: string, payload: CategorizeBatchPayload): Promise<void> {
    await this.add(JobName.CategorizeBatch, jobId, payload);
  }

  /** The job id is the day, so every scheduler replica enqueuing the same night adds one job between them. */
  async enqueueNightlyRun(payload: NightlyRunPayload): Promise<void> {
    await this.withTimeout(
      this.analyticsQueue.add(JobName.NightlyRun, payload, {
        jobId: `nightly-${payload.day}`,
        attempts: 3,
        backoff: { type: 'exponential', delay: 60_000 },
        removeOnComplete: { age: 7 * 86400 },
        removeOnFail: false,
      }),
    );
  }

  get events(): Queue {
    return this.eventsQueue;
  }

  /** The queue older versions dead-lettered into; FailedBatchesReconciler (categorize) drains it into the dead-letter store. */
  get deadLetters(): Queue {
    return this.deadLetterQueue;
  }

  get analytics(): Queue {
    return this.analyticsQueue;
  }

  /**
   * Null when Redis answers and takes writes, else why not: a Redis that answers PING but refuses writes (out of
   * memory under noeviction, too few replicas, read-only) cannot queue a single event.
   */
  async findRedisProblem(): Promise<string | null> {
    try {
      const key = `${this.config.queuePrefix}:readiness-probe`;
      await this.withTimeout(this.connection.set(key, String(Date.now()), 'PX', 10_000), READINESS_TIMEOUT_MS);
      return null;
    } catch (error) {
      return error instanceof QueueUnavailableError ? error.message : String(error);
    }
  }

  private async add<N extends JobName>(name: N, jobId: string, payload: JobPayloads[N]): Promise<void> {
    if (this.connection.status !== 'ready') throw new QueueUnavailableError(`redis is ${this.connection.status}`, false);
    await this.withTimeout(this.eventsQueue.add(name, payload, { ...eventsJobOptions(this.config.jobAttempts), jobId }));
  }

  private async withTimeout<T>(promise: Promise<T>, timeoutMs = ENQUEUE_TIMEOUT_MS): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new QueueUnavailableError('redis did not answer in time', true)), timeoutMs);
    });
    try {
      return await Promise.race([promise, timeout]);
    } catch (error) {
      if (error instanceof QueueUnavailableError) throw error;
      throw new QueueUnavailableError(String(error), !(error instanceof ReplyError));
    } finally {
      clearTimeout(timer);
    }
  }

  async onModuleDestroy() {
    await Promise.allSettled([this.eventsQueue.close(), this.deadLetterQueue.close(), this.analyticsQueue.close()]);
    this.connection.disconnect();
  }
}
