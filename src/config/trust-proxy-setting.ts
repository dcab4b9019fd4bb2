import { isIP } from 'node:net';

/**
 * Whose X-Forwarded-For the server believes for the client address. The address is read right to left: the socket's
 * peer and each address before it that is a trusted proxy are skipped, and the first one that is not is the client
 * (what a proxy you run appended; everything to its left was written by the client and is never believed).
 * - none: the socket's peer is the client;
 * - hops: that many proxies stand in front of every request (the app must not be reachable around them);
 * - proxies: the proxies' addresses or CIDR ranges, or `loopback`, `linklocal`, `uniquelocal`.
 */
export type TrustProxySetting = { kind: 'none' } | { kind: 'hops'; hops: number } | { kind: 'proxies'; proxies: string[] };

export const TRUST_PROXY_HINT =
  'false, the number of proxies in front of the app (1-99), or a comma list of their addresses, CIDR ranges, loopback, linklocal or uniquelocal';

const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** The setting, or why it is refused (`true` believed the leftmost address, which the client chooses). */
export function readTrustProxy(value: string): TrustProxySetting | string {
  const text = value.trim();
  if (text.toLowerCase() === 'false') return { kind: 'none' };
  if (text.toLowerCase() === 'true') {
    return (
      'true is no longer accepted: it believed the leftmost X-Forwarded-For address, which any client can write; ' +
      'give the number of proxies in front of the app (e.g. 1) or their addresses (e.g. 10.0.0.0/8)'
    );
  }
  if (/^[0-9]+$/.test(text)) {
    const hops = Number(text);
    return hops >= 1 && hops <= 99 ? { kind: 'hops', hops } : `expected ${TRUST_PROXY_HINT}`;
  }
  const proxies = text.split(',').map((entry) => entry.trim());
  const bad = proxies.filter((entry) => !isProxyEntry(entry));
  if (bad.length > 0)
    return `${bad.map((entry) => JSON.stringify(entry)).join(', ')} is not an address or CIDR range; expected ${TRUST_PROXY_HINT}`;
  return { kind: 'proxies', proxies };
}

function isProxyEntry(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** Fastify's `trustProxy` option for the setting (a hop count is a function: Fastify's own number form ignores hops). */
export function fastifyTrustProxy(setting: TrustProxySetting): false | string[] | ((address: string, hop: number) => boolean) {
  if (setting.kind === 'none') return false;
  if (setting.kind === 'proxies') return setting.proxies;
  const { hops } = setting;
  // hop 0 is the socket's peer, 1 the rightmost X-Forwarded-For entry, and so on
  return (_address, hop) => hop < hops;
}
