/** Where Redis is: one server (any redis:// or rediss:// URL ioredis takes), or the seed nodes of a Redis Cluster. */
export type RedisTarget =
  { mode: 'single'; url: string } | { mode: 'cluster'; nodes: RedisNodeAddress[]; username?: string; password?: string; isTls: boolean };

export interface RedisNodeAddress {
  host: string;
  port: number;
}

/** Seeds are only where the client starts: it learns the rest of the cluster from them, so a few are plenty. */
export const MAX_CLUSTER_SEED_NODES = 32;

export const CLUSTER_URL_PATTERN = '^rediss?\\+cluster://';

const NODE_PATTERN = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):([0-9]{1,5})$/;
const CLUSTER_URL = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#@]*)(\/[^?#]*)?$/;

export interface RedisSettings {
  target: RedisTarget;
  /** The one string that names the target again as REDIS_URL (what a child process or a log line is given). */
  url: string;
}

/**
 * Reads REDIS_URL and REDIS_CLUSTER_NODES (already checked for shape by the env schema) into a target, or the problems
 * that stop it, each naming its variable. `isRedisUrlSet` is false when REDIS_URL is only the default.
 */
export function readRedisSettings(redisUrl: string, clusterNodes: string, isRedisUrlSet: boolean): RedisSettings | string[] {
  if (clusterNodes !== '') {
    if (isRedisUrlSet)
      return ['REDIS_URL and REDIS_CLUSTER_NODES are both set: set one (REDIS_URL=redis+cluster://... names a cluster too)'];
    const nodes = parseNodes(clusterNodes);
    if (typeof nodes === 'string') return [`REDIS_CLUSTER_NODES=${JSON.stringify(clusterNodes)} is invalid: ${nodes}`];
    return { target: { mode: 'cluster', nodes, isTls: false }, url: `redis+cluster://${clusterNodes}` };
  }
  if (!new RegExp(CLUSTER_URL_PATTERN).test(redisUrl)) return { target: { mode: 'single', url: redisUrl }, url: redisUrl };
  const target = parseClusterUrl(redisUrl);
  if (typeof target === 'string') return [`REDIS_URL=${JSON.stringify(redactRedisUrl(redisUrl))} is invalid: ${target}`];
  return { target, url: redisUrl };
}

function parseClusterUrl(url: string): Extract<RedisTarget, { mode: 'cluster' }> | string {
  const match = CLUSTER_URL.exec(url);
  if (!match) return 'expected redis+cluster://[user:password@]host:port,host:port (no query string)';
  const [, scheme, userInfo, nodeList, path] = match;
  // a cluster has only database 0
  if (path !== undefined && path !== '/' && path !== '/0') return `a Redis Cluster has only database 0, not ${path.slice(1)}`;
  const nodes = parseNodes(nodeList);
  if (typeof nodes === 'string') return nodes;
  const target: Extract<RedisTarget, { mode: 'cluster' }> = { mode: 'cluster', nodes, isTls: scheme === 'rediss' };
  if (userInfo !== undefined) {
    const colon = userInfo.indexOf(':');
    const username = decodeURIComponent(colon < 0 ? userInfo : userInfo.slice(0, colon));
    if (username !== '') target.username = username;
    if (colon >= 0) target.password = decodeURIComponent(userInfo.slice(colon + 1));
  }
  return target;
}

function parseNodes(list: string): RedisNodeAddress[] | string {
  const parts = list.split(',').map((part) => part.trim());
  if (parts.length > MAX_CLUSTER_SEED_NODES) return `expected at most ${MAX_CLUSTER_SEED_NODES} seed nodes, got ${parts.length}`;
  const nodes: RedisNodeAddress[] = [];
  for (const part of parts) {
    const match = NODE_PATTERN.exec(part);
    const port = Number(match?.[3]);
    if (!match || port < 1 || port > 65535) return `expected host:port pairs separated by commas, and ${JSON.stringify(part)} is not one`;
    nodes.push({ host: match[1] ?? match[2], port });
  }
  return nodes;
}

/** A Redis URL safe to print, cluster URLs included (whose comma list of hosts the WHATWG URL parser refuses). */
export function redactRedisUrl(url: string): string {
  return url.replace(/^([A-Za-z+]+:\/\/[^:@/]*:)[^@/]*@/, '$1***@');
}
