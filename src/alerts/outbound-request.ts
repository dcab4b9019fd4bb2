import { promises as dns } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { nonPublicAddressReason } from './destination-address';

// The one way alerts reach the outside: a POST to a destination URL, resolved once and checked (SSRF), then sent to
// that very address (a second DNS answer cannot point it elsewhere), no redirect followed, within a deadline, reading
// at most a few KB of the answer.

export const DELIVERY_TIMEOUT_MS = 5000;
const MAX_RESPONSE_BYTES = 16 * 1024;

/** A destination that may never be sent to as configured: retrying cannot help. */
export class RefusedDestinationError extends Error {}

export interface PinnedTarget {
  url: URL;
  address: string;
}

/** Checks a URL's form: http(s), a host, no credentials. The reason it is not a destination URL, or null. */
export function destinationUrlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute http:// or https:// URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an absolute http:// or https:// URL';
  if (url.username || url.password) return 'must not carry a user name or password';
  return null;
}

/**
 * Resolves the URL's host and picks the address to send to. Refuses (RefusedDestinationError) a host any of whose
 * addresses is not public unicast (destination-address.ts), unless `allowPrivate`: a name that resolves to both a
 * public and a private address is refused too. A refused name never has its addresses told back: what the server's
 * DNS answers about internal names is not the project's to learn.
 */
export async function resolveDestination(text: string, allowPrivate: boolean, timeoutMs = DELIVERY_TIMEOUT_MS): Promise<PinnedTarget> {
  const problem = destinationUrlProblem(text);
  if (problem) throw new RefusedDestinationError(`the URL ${problem}`);
  const url = new URL(text);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : await lookupAll(host, timeoutMs);
  if (addresses.length === 0) throw new RefusedDestinationError(`${host} has no address`);
  if (!allowPrivate) {
    if (isIP(host)) {
      const reason = nonPublicAddressReason(host);
      if (reason) throw new RefusedDestinationError(`${host} ${reason}; private destinations are not allowed on this server`);
    } else if (addresses.some((address) => nonPublicAddressReason(address) !== null)) {
      throw new RefusedDestinationError(`${host} resolves to a non-public address; private destinations are not allowed on this server`);
    }
  }
  return { url, address: addresses[0] };
}

async function lookupAll(host: string, timeoutMs: number): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`resolving ${host} took longer than ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const found = await Promise.race([dns.lookup(host, { all: true, verbatim: true }), timeout]);
    return found.map((entry) => entry.address);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTFOUND') throw new RefusedDestinationError(`${host} does not resolve`);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

export interface PostResult {
  statusCode: number;
  latencyMs: number;
}

/** POSTs `body` to the pinned address; rejects on a network error or the deadline. Any status is a result. */
export function postToPinned(
  target: PinnedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs = DELIVERY_TIMEOUT_MS,
): Promise<PostResult> {
  const { url, address } = target;
  const isHttps = url.protocol === 'https:';
  const started = performance.now();
  return new Promise<PostResult>((resolve, reject) => {
    const request = (isHttps ? httpsRequest : httpRequest)({
      host: address,
      port: url.port || (isHttps ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      // the certificate is checked for the configured name, not the address connected to
      servername: isHttps && !isIP(url.hostname) ? url.hostname : undefined,
      headers: { ...headers, host: url.host, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      agent: false,
    });
    const deadline = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    request.on('error', (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    request.on('response', (response: IncomingMessage) => {
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        // the answer's body tells us nothing we keep: stop reading a large one
        if (read > MAX_RESPONSE_BYTES) response.destroy();
      });
      const finish = () => {
        clearTimeout(deadline);
        resolve({ statusCode: response.statusCode ?? 0, latencyMs: Math.round(performance.now() - started) });
      };
      response.on('end', finish);
      response.on('close', finish);
    });
    request.end(body);
  });
}
