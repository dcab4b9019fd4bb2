import { Redis, RedisOptions } from 'ioredis';

/**
 * BullMQ needs two kinds of connection. Workers block on Redis and must retry forever (maxRetriesPerRequest: null).
 * Producers on the request path must fail fast when Redis is gone or frozen, so the API can answer 503 instead of
 * hanging: no offline queue, one retry, and no command waits longer than PRODUCER_COMMAND_TIMEOUT_MS for its answer.
 */
export const PRODUCER_COMMAND_TIMEOUT_MS = 2000;

export function createWorkerConnection(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
}

export function createProducerConnection(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 2000,
    commandTimeout: PRODUCER_COMMAND_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    ...options,
  });
}
