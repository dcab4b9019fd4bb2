import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import { ReplyError } from 'ioredis';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { ApiError } from '../http/api-error';
import { createProducerConnection, isCluster, RedisConnection } from '../redis/redis-connections';
import { JobName, QueueName } from './queue.names';
import { FairPriority } from './fair-priority';
import { JobDefinition, JOBS } from './queue.jobs';
import { JobPayloads } from './queue.payloads';
import { RecurringJobName, Repeat } from './queue.schedules';

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

/** How long a client told to retry (a 503 for a job that could not be queued) waits first. */
export const QUEUE_RETRY_AFTER_SECONDS = 5;

/**
 * The 503 a route answers when its job could not be queued: `queue_unavailable` when Redis certainly holds nothing of
 * it, `queue_unconfirmed` when it may have landed; both with Retry-After. Each route says what that means for it.
 */
export function queueUnavailableResponse(
  error: QueueUnavailableError,
  messages: { unavailable: string; unconfirmed: string },
  unavailableBody?: Record<string, unknown>,
): ApiError {
  const headers = { 'retry-after': String(QUEUE_RETRY_AFTER_SECONDS) };
  if (!error.mayHaveLanded) return new ApiError(503, 'queue_unavailable', messages.unavailable, { headers, body: unavailableBody });
  return new ApiError(503, 'queue_unconfirmed', messages.unconfirmed, { headers });
}

/** Short enough that a request waiting on a frozen Redis still answers 503 within 3 s, rate limit check included. */
const ENQUEUE_TIMEOUT_MS = 2000;
const READINESS_TIMEOUT_MS = 1000;

/** The typed producer: the only way the app puts jobs on a queue. */
/** The priority of a job whose project's share could not be counted: as a project that queued nothing lately. */
const UNCOUNTED_PRIORITY = 1;

@Injectable()
export class QueueProducer implements OnModuleDestroy {
  private readonly connection: RedisConnection;
  private readonly queues: Record<QueueName, Queue>;
  private readonly fairPriority: FairPriority;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.connection = createProducerConnection(config.redis);
    // An unreachable Redis is reported per request (503), not as an unhandled 'error' event.
    this.connection.on('error', () => undefined);
    const options = { connection: this.connection, prefix: config.queueKeyPrefix };
    this.queues = {
      [QueueName.Events]: new Queue(QueueName.Events, options),
      [QueueName.Analytics]: new Queue(QueueName.Analytics, options),
      [QueueName.DeadLetter]: new Queue(QueueName.DeadLetter, options),
      [QueueName.Alerts]: new Queue(QueueName.Alerts, options),
      [QueueName.Maintenance]: new Queue(QueueName.Maintenance, options),
    };
    for (const queue of Object.values(this.queues)) queue.on('error', () => undefined);
    this.fairPriority = new FairPriority(this.connection, `${config.queueKeyPrefix}:${QueueName.Events}`);
  }

  /**
   * Puts a job on its queue with the options of its row in JOBS. Resolves once Redis has the job; rejects with
   * QueueUnavailableError when it cannot be queued. A job id Redis already holds adds nothing (BullMQ keeps the first),
   * which is what makes deterministic ids idempotent.
   */
  async enqueue<N extends JobName>(name: N, payload: JobPayloads[N], jobId: string): Promise<void> {
    if (this.connection.status !== 'ready') throw new QueueUnavailableError(`redis is ${this.connection.status}`, false);
    await this.withTimeout(this.add(name, payload, jobId));
  }

  /**
   * The job's fair share, when its queue has one, is counted in Redis first: its priority is part of the job. A count
   * that fails or times out (a slow Redis) never keeps the job from being added: fairness is best effort, the 503 the
   * caller may get then says "maybe queued", and the job must still land once Redis answers.
   */
  private async add<N extends JobName>(name: N, payload: JobPayloads[N], jobId: string): Promise<unknown> {
    const job = JOBS[name] as JobDefinition<JobPayloads[N]>;
    const share = job.fairShareOf?.(payload);
    const identity = share ? { jobId, priority: await this.priorityOf(share.owner, share.events) } : { jobId };
    // options() builds a fresh object; `{ ...options, jobId }` would cost an old-space allocation a request (docs/perf.md)
    return this.queues[job.queue].add(name, payload, Object.assign(job.options(this.config), identity));
  }

  /**
   * Creates or updates the job scheduler of a recurring job (its id is the job's name): one schedule in Redis however
   * many processes call this, each occurrence a job added with the options of its row in JOBS.
   */
  async schedule(name: RecurringJobName, repeat: Repeat): Promise<void> {
    const job = JOBS[name];
    await this.withTimeout(this.queues[job.queue].upsertJobScheduler(name, repeat, { name, data: {}, opts: job.options(this.config) }));
  }

  /** Removes every job scheduler whose id is not among `names` (a recurring job this version no longer has); answers them. */
  async unscheduleAllBut(names: readonly string[]): Promise<string[]> {
    const removed: string[] = [];
    for (const queue of Object.values(this.queues)) {
      for (const scheduler of await this.withTimeout(queue.getJobSchedulers())) {
        if (names.includes(scheduler.key)) continue;
        await this.withTimeout(queue.removeJobScheduler(scheduler.key));
        removed.push(scheduler.key);
      }
    }
    return removed;
  }

  private priorityOf(owner: string, events: number): Promise<number> {
    return this.fairPriority.priorityFor(owner, events, Date.now()).catch(() => UNCOUNTED_PRIORITY);
  }

  get events(): Queue {
    return this.queues[QueueName.Events];
  }

  /** The queue older versions dead-lettered into; FailedBatchesReconciler (categorize) drains it into the dead-letter store. */
  get deadLetters(): Queue {
    return this.queues[QueueName.DeadLetter];
  }

  get analytics(): Queue {
    return this.queues[QueueName.Analytics];
  }

  get alerts(): Queue {
    return this.queues[QueueName.Alerts];
  }

  get maintenance(): Queue {
    return this.queues[QueueName.Maintenance];
  }

  /**
   * Null when Redis answers and takes writes, else why not: a Redis that answers PING but refuses writes (out of
   * memory under noeviction, too few replicas, read-only) cannot queue a single event. On a Cluster the write goes to
   * the queues' slot, and a cluster that lost slot coverage is reported by its state.
   */
  async findRedisProblem(): Promise<string | null> {
    try {
      if (isCluster(this.connection)) {
        const info = await this.withTimeout(this.connection.cluster('INFO'), READINESS_TIMEOUT_MS);
        const state = /cluster_state:(\w+)/.exec(info)?.[1] ?? 'unknown';
        if (state !== 'ok') return `redis cluster state is ${state}`;
      }
      const key = `${this.config.queueKeyPrefix}:readiness-probe`;
      await this.withTimeout(this.connection.set(key, String(Date.now()), 'PX', 10_000), READINESS_TIMEOUT_MS);
      return null;
    } catch (error) {
      return error instanceof QueueUnavailableError ? error.message : String(error);
    }
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
    await Promise.allSettled(Object.values(this.queues).map((queue) => queue.close()));
    this.connection.disconnect();
  }
}
