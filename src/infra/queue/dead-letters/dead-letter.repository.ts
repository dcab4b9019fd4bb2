import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '../../../config/config';
import { APP_CONFIG } from '../../../config/config.module';
import { createProducerConnection, RedisConnection } from '../../redis/redis-connections';
import { CategorizeBatchPayload } from '../queue.payloads';
import { DeadLetter, DeadLetterSummary } from './dead-letter.entry';
import { CLAIM_SCRIPT, FINISH_REPLAY_SCRIPT, PAGE_SCRIPT, PARK_SCRIPT, RELEASE_CLAIM_SCRIPT } from './dead-letter.scripts';

/** Every call fails within this time when Redis is gone or frozen, so a request can still answer 503 within 3 s. */
export const DEAD_LETTER_COMMAND_TIMEOUT_MS = 2000;
/** How long a claimed replay may take to queue its job before another replay of the entry may try. */
const CLAIM_MS = 30_000;

export interface DeadLetterPage {
  items: Array<DeadLetterSummary & { score: string }>;
  /** Entries the project has now (before paging). */
  total: number;
  dropped: number;
  expired: number;
}

/** What a park did: stored the entry, found its id parked before, or found some of its job's events in another entry. */
export type ParkOutcome = { outcome: 'parked' } | { outcome: 'parked-before' } | { outcome: 'events-parked'; eventIds: Set<string> };

export type ReplayClaim =
  | { outcome: 'claimed'; batch: CategorizeBatchPayload }
  | { outcome: 'in-progress' }
  | { outcome: 'replayed'; replayedAs: string }
  | { outcome: 'missing' };

interface DeadLetterCommands {
  parkDeadLetter(ids: string, summaries: string, sizes: string, counters: string, ...argv: string[]): Promise<string[]>;
  pageDeadLetters(
    ids: string,
    summaries: string,
    sizes: string,
    counters: string,
    ...argv: string[]
  ): Promise<[number, string, string, string[]]>;
  claimDeadLetter(ids: string, ...argv: string[]): Promise<string[]>;
  finishDeadLetterReplay(ids: string, summaries: string, sizes: string, counters: string, ...argv: string[]): Promise<number>;
  releaseDeadLetterClaim(claim: string, ...argv: string[]): Promise<number>;
}

/**
 * Dead letters in Redis, per project, under the app's queue prefix: capped in count and bytes (oldest dropped and
 * counted) and kept for the retention time. See dead-letter.scripts.ts for the layout.
 */
@Injectable()
export class DeadLetterRepository implements OnModuleDestroy {
  private readonly redis: RedisConnection & DeadLetterCommands;
  private readonly retentionMs: number;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    // an offline queue bounded by the command timeout: a call right after boot waits for the connection, never longer
    const connection = createProducerConnection(config.redis, {
      enableOfflineQueue: true,
      commandTimeout: DEAD_LETTER_COMMAND_TIMEOUT_MS,
    });
    connection.on('error', () => undefined);
    connection.defineCommand('parkDeadLetter', { numberOfKeys: 4, lua: PARK_SCRIPT });
    connection.defineCommand('pageDeadLetters', { numberOfKeys: 4, lua: PAGE_SCRIPT });
    connection.defineCommand('claimDeadLetter', { numberOfKeys: 1, lua: CLAIM_SCRIPT });
    connection.defineCommand('finishDeadLetterReplay', { numberOfKeys: 4, lua: FINISH_REPLAY_SCRIPT });
    connection.defineCommand('releaseDeadLetterClaim', { numberOfKeys: 1, lua: RELEASE_CLAIM_SCRIPT });
    this.redis = connection as RedisConnection & DeadLetterCommands;
    this.retentionMs = Math.round(config.deadLetterRetentionDays * 86_400_000);
  }

  /**
   * Stores a dead letter unless one with its id was parked before, or one of its events was parked from the same job
   * under another id (then nothing is stored, and the answer names those events).
   */
  async park(letter: DeadLetter, now: Date): Promise<ParkOutcome> {
    const { summary } = letter;
    const [outcome, ...eventIds] = await this.redis.parkDeadLetter(
      ...this.entryKeys(letter.projectId),
      summary.id,
      JSON.stringify(summary),
      JSON.stringify(letter.batch),
      String(now.getTime()),
      String(this.retentionMs),
      this.cutoffScore(now),
      String(this.config.deadLetterMaxPerProject),
      String(this.config.deadLetterMaxBytesPerProject),
      String(2 * this.retentionMs),
      summary.originalJobId,
      JSON.stringify(letter.batch.events.map((event) => event.id)),
      this.base(letter.projectId),
    );
    if (outcome === 'events-parked') return { outcome, eventIds: new Set(eventIds) };
    return { outcome: outcome === 'parked' ? 'parked' : 'parked-before' };
  }

  /** The ids of the job's events parked within the retention time, in any entry. */
  async parkedEventIds(projectId: string, jobId: string): Promise<Set<string>> {
    return new Set(await this.redis.smembers(this.key(projectId, `job-events:${jobId}`)));
  }

  /** True when a dead letter with this id was parked within the retention time (replayed or dropped since, or not). */
  async wasParked(projectId: string, id: string): Promise<boolean> {
    return (await this.redis.exists(this.key(projectId, `parked:${id}`))) === 1;
  }

  /** Newest first; `beforeScore` is the score of the last entry of the previous page. */
  async page(projectId: string, limit: number, beforeScore: string | null, now: Date): Promise<DeadLetterPage> {
    const [total, dropped, expired, flat] = await this.redis.pageDeadLetters(
      ...this.entryKeys(projectId),
      this.cutoffScore(now),
      String(limit),
      beforeScore ?? '+inf',
      this.base(projectId),
    );
    const items: DeadLetterPage['items'] = [];
    for (let i = 0; i < flat.length; i += 3) {
      // a summary can be missing only if the entry vanished mid-read; the list skips it rather than failing
      if (flat[i + 2]) items.push({ ...(JSON.parse(flat[i + 2]) as DeadLetterSummary), score: flat[i + 1] });
    }
    return { items, total: Number(total), dropped: Number(dropped), expired: Number(expired) };
  }

  /** Atomically hands the entry to exactly one replay (`token` identifies it until finishReplay or releaseClaim). */
  async claim(projectId: string, id: string, token: string): Promise<ReplayClaim> {
    const [outcome, value] = await this.redis.claimDeadLetter(
      this.key(projectId, 'ids'),
      id,
      token,
      String(CLAIM_MS),
      this.base(projectId),
    );
    if (outcome === 'ok') return { outcome: 'claimed', batch: JSON.parse(value) as CategorizeBatchPayload };
    if (outcome === 'claimed') return { outcome: 'in-progress' };
    if (outcome === 'replayed') return { outcome: 'replayed', replayedAs: value };
    return { outcome: 'missing' };
  }

  async finishReplay(projectId: string, id: string, token: string, replayedAs: string): Promise<void> {
    await this.redis.finishDeadLetterReplay(
      ...this.entryKeys(projectId),
      id,
      token,
      replayedAs,
      String(this.retentionMs),
      this.base(projectId),
    );
  }

  async releaseClaim(projectId: string, id: string, token: string): Promise<void> {
    await this.redis.releaseDeadLetterClaim(this.key(projectId, `claim:${id}`), token);
  }

  private entryKeys(projectId: string): [string, string, string, string] {
    return [this.key(projectId, 'ids'), this.key(projectId, 'summaries'), this.key(projectId, 'sizes'), this.key(projectId, 'counters')];
  }

  private key(projectId: string, name: string): string {
    return `${this.base(projectId)}${name}`;
  }

  /** The hash tag keeps a project's keys in one Cluster slot. */
  private base(projectId: string): string {
    return `${this.config.queuePrefix}:dead-letters:{${projectId}}:`;
  }

  /** Entries parked before this score are past retention. */
  private cutoffScore(now: Date): string {
    return `${now.getTime() - this.retentionMs}000`;
  }

  onModuleDestroy() {
    this.redis.disconnect();
  }
}
