import type { RedisConnection } from '../redis/redis-connections';

// Fair shares of one queue between projects with open-source BullMQ (groups are BullMQ Pro): a job's priority is how
// much its project queued in the last 10 to 20 s, counted in Redis so every API replica counts the same. BullMQ takes
// lower priorities first and keeps FIFO within one, so the batches of a project that sent little lately pass the
// backlog of one that sent much, and two heavy projects alternate. Nothing has to be decremented when a job finishes
// (a crash cannot leave a count wrong for long): the counts are two fixed windows that expire by themselves.

/** How long one window counts; a job's priority reflects its project's last one to two windows. */
export const RECENT_WINDOW_MS = 10_000;
/** Events that move a project one priority level down: a 1000-event batch is ten levels, a lone event none. */
export const EVENTS_PER_PRIORITY_LEVEL = 100;
/** BullMQ's lowest priority (PRIORITY_LIMIT); a project past it is served FIFO with the others that are. */
export const LOWEST_PRIORITY = 2 ** 21 - 1;

// KEYS[1] this window's count, KEYS[2] the previous window's; ARGV[1] events to add, ARGV[2] lifetime in ms.
// Returns what the project queued in both windows before this job, and counts the job.
const COUNT_RECENT_SCRIPT = `
local before = tonumber(redis.call('GET', KEYS[1]) or '0') + tonumber(redis.call('GET', KEYS[2]) or '0')
redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return before
`;

interface FairPriorityCommands {
  countRecentEvents(current: string, previous: string, events: number, lifetimeMs: number): Promise<number>;
}

/** Priorities for the jobs of one queue, shared fairly between their owners (projects). */
export class FairPriority {
  private readonly redis: RedisConnection & FairPriorityCommands;

  /** `keyPrefix` is the queue's (on a Cluster it carries the hash tag, so the script's two keys share a slot). */
  constructor(
    redis: RedisConnection,
    private readonly keyPrefix: string,
  ) {
    redis.defineCommand('countRecentEvents', { numberOfKeys: 2, lua: COUNT_RECENT_SCRIPT });
    this.redis = redis as RedisConnection & FairPriorityCommands;
  }

  /** The priority of a job of `owner` carrying `events` events, counted toward the owner's next jobs. */
  async priorityFor(owner: string, events: number, nowMs: number): Promise<number> {
    const window = Math.floor(nowMs / RECENT_WINDOW_MS);
    const base = `${this.keyPrefix}:recent-events:${owner}:`;
    // each window's count lives until the next window is over, when nothing reads it any more
    const before = await this.redis.countRecentEvents(`${base}${window}`, `${base}${window - 1}`, events, 2 * RECENT_WINDOW_MS);
    return Math.min(LOWEST_PRIORITY, 1 + Math.floor(before / EVENTS_PER_PRIORITY_LEVEL));
  }
}
