import Fastify from 'fastify';
import { ConfigError, loadConfig } from './config';
import { fastifyTrustProxy, readTrustProxy } from './trust-proxy-setting';

/** The client address Fastify answers, under TRUST_PROXY=`value`, for a request from 127.0.0.1 with `forwardedFor`. */
async function clientAddress(value: string, forwardedFor?: string): Promise<string> {
  const setting = readTrustProxy(value);
  if (typeof setting === 'string') throw new Error(setting);
  const app = Fastify({ trustProxy: fastifyTrustProxy(setting) });
  app.get('/', (request) => ({ ip: request.ip }));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const response = await fetch(url, { headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } });
    return ((await response.json()) as { ip: string }).ip;
  } finally {
    await app.close();
  }
}

describe('TRUST_PROXY', () => {
  it('believes no X-Forwarded-For by default', async () => {
    expect(await clientAddress('false', '203.0.113.1')).toBe('127.0.0.1');
  });

  it('with a hop count takes the address that many proxies back, never a leftmost entry the client wrote', async () => {
    expect(await clientAddress('1', '6.6.6.6, 203.0.113.1')).toBe('203.0.113.1');
    expect(await clientAddress('2', '6.6.6.6, 203.0.113.1, 10.0.0.9')).toBe('203.0.113.1');
    expect(await clientAddress('1')).toBe('127.0.0.1');
  });

  it('with proxy addresses skips trusted hops from the right and stops at the first untrusted one', async () => {
    expect(await clientAddress('10.0.0.0/8, 127.0.0.1', '6.6.6.6, 203.0.113.1, 10.1.2.3')).toBe('203.0.113.1');
    expect(await clientAddress('loopback', '6.6.6.6, 203.0.113.1')).toBe('203.0.113.1');
    // a peer that is not a named proxy is the client, whatever it forwards
    expect(await clientAddress('10.0.0.0/8', '6.6.6.6')).toBe('127.0.0.1');
  });

  it.each([
    ['true', /true is no longer accepted: it believed the leftmost X-Forwarded-For address/],
    ['0', /the number of proxies in front of the app \(1-99\)/],
    ['10.0.0.0/33', /"10.0.0.0\/33" is not an address or CIDR range/],
    ['10.0.0.1, proxy.internal', /"proxy.internal" is not an address or CIDR range/],
  ])('refuses TRUST_PROXY=%s at boot, saying why, beside the other bad variables', (value, reason) => {
    let error: unknown;
    try {
      loadConfig({ TRUST_PROXY: value, PORT: 'x' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems.some((problem) => problem.startsWith('PORT='))).toBe(true);
    expect(problems.find((problem) => problem.startsWith('TRUST_PROXY='))).toMatch(reason);
  });

  it('accepts addresses and ranges of both families and the named ranges', () => {
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8,fd00::/8, 192.0.2.1 ,uniquelocal' }).trustProxy).toEqual({
      kind: 'proxies',
      proxies: ['10.0.0.0/8', 'fd00::/8', '192.0.2.1', 'uniquelocal'],
    });
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toEqual({ kind: 'hops', hops: 2 });
  });
});
