import { Cluster, ClusterOptions, Redis, RedisOptions } from 'ioredis';
import { RedisTarget } from '../../config/redis-settings';

/** A connection to one Redis or to a Redis Cluster: both speak the same commands, pub/sub and scripts. */
export type RedisConnection = Redis | Cluster;

/**
 * BullMQ needs two kinds of connection. Workers block on Redis and must retry forever (maxRetriesPerRequest: null).
 * Producers on the request path must fail fast when Redis is gone or frozen, so the API can answer 503 instead of
 * hanging: no offline queue, one retry, and no command waits longer than PRODUCER_COMMAND_TIMEOUT_MS for its answer.
 */
export const PRODUCER_COMMAND_TIMEOUT_MS = 2000;

/** What a caller may change of a producer connection. */
export interface ProducerConnectionOptions {
  enableOfflineQueue?: boolean;
  commandTimeout?: number;
}

export function createWorkerConnection(target: RedisTarget): RedisConnection {
  const options: RedisOptions = { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false };
  if (target.mode === 'single') return new Redis(target.url, options);
  return new Cluster(target.nodes, { ...clusterOptions(target, options), enableReadyCheck: true });
}

export function createProducerConnection(target: RedisTarget, options: ProducerConnectionOptions = {}): RedisConnection {
  const enableOfflineQueue = options.enableOfflineQueue ?? false;
  const perNode: RedisOptions = {
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: options.commandTimeout ?? PRODUCER_COMMAND_TIMEOUT_MS,
  };
  const retryStrategy = (attempt: number) => Math.min(attempt * 200, 2000);
  if (target.mode === 'single') return new Redis(target.url, { ...perNode, enableOfflineQueue, retryStrategy });
  return new Cluster(target.nodes, { ...clusterOptions(target, perNode), enableOfflineQueue, clusterRetryStrategy: retryStrategy });
}

/** A connection that tries once and never reconnects, for a check at start-up. */
export function createProbeConnection(target: RedisTarget, connectTimeoutMs: number): RedisConnection {
  const perNode: RedisOptions = { connectTimeout: connectTimeoutMs, maxRetriesPerRequest: 0 };
  if (target.mode === 'single') {
    return new Redis(target.url, { ...perNode, lazyConnect: true, retryStrategy: () => null, enableOfflineQueue: false });
  }
  return new Cluster(target.nodes, {
    ...clusterOptions(target, perNode),
    lazyConnect: true,
    clusterRetryStrategy: () => null,
    enableOfflineQueue: false,
  });
}

export function isCluster(connection: RedisConnection): connection is Cluster {
  return connection instanceof Cluster;
}

/**
 * Options every cluster connection shares. A node that restarts or fails over answers MOVED, TRYAGAIN or CLUSTERDOWN
 * for a while; ioredis then refreshes the slot map and retries after these delays instead of failing the command.
 */
function clusterOptions(target: Extract<RedisTarget, { mode: 'cluster' }>, perNode: RedisOptions): ClusterOptions {
  return {
    redisOptions: {
      ...perNode,
      ...(target.username !== undefined ? { username: target.username } : {}),
      ...(target.password !== undefined ? { password: target.password } : {}),
      ...(target.isTls ? { tls: {} } : {}),
    },
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 300,
    retryDelayOnTryAgain: 200,
    slotsRefreshTimeout: 2000,
  };
}
