import { hashApiKey } from '../../src/tenancy/api-key';
import { keyChangeMessage, keyChangesChannelName } from '../../src/tenancy/api-key-changes.channel';
import { ProjectRepository } from '../../src/tenancy/project.repository';
import { RedisBroadcast } from '../../src/infra/redis/redis-broadcast';
import { createRootLogger } from '../../src/infra/logging/logger';
import { eventually, startTestApp, TestApp } from '../support/test-app';

// Finding 3 of issue 33: 30 wrong keys from one address made every uncached valid key of every project answer 429 for
// 60 s, and with a trusted proxy in front each X-Forwarded-For value was a fresh address (a query per wrong key).

/** The default of AUTH_FAILURES_PER_MINUTE: the most lookups of keys the index lacks that a burst may cost. */
const UNKNOWN_KEY_LOOKUPS_PER_MINUTE = 30;

async function statusesOf(requests: Array<() => Promise<{ status: number }>>, concurrency = 20): Promise<number[]> {
  const statuses: number[] = [];
  for (let start = 0; start < requests.length; start += concurrency) {
    const chunk = await Promise.all(requests.slice(start, start + concurrency).map((send) => send()));
    statuses.push(...chunk.map((response) => response.status));
  }
  return statuses;
}

describe('finding 3: wrong keys never lock out a valid key', () => {
  describe('without a proxy (every client behind a load balancer shares one address)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ RATE_LIMIT_REQUESTS: '0' });
    });
    afterAll(() => t.close());

    it('answers 401 to 40 wrong keys from one address, then 200 to the uncached keys of three projects (the probe)', async () => {
      const projects = await Promise.all(['probe-a', 'probe-b', 'probe-c'].map((name) => t.createProject(name)));
      const wrong = await statusesOf(
        Array.from({ length: 40 }, (_, i) => () => t.request('GET', '/v1/tools', { key: `tc_wrong_${i}` })),
        1,
      );
      expect(new Set(wrong)).toEqual(new Set([401]));
      for (const project of projects) {
        expect((await t.request('GET', '/v1/tools', { key: project.apiKey })).status).toBe(200);
        expect((await t.request('POST', '/v1/events', { key: project.apiKey, body: { tool: 't', status: 'success' } })).status).toBe(202);
      }
    });

    it('costs at most the per-minute budget of lookups for 500 distinct wrong keys, and none for a repeated one', async () => {
      const lookups = jest.spyOn(t.app.get(ProjectRepository), 'findProjectByKeyHash');
      try {
        const flood = await statusesOf(
          Array.from({ length: 500 }, (_, i) => () => t.request('GET', '/v1/events', { key: `tc_flood_${i}` })),
        );
        expect(new Set(flood)).toEqual(new Set([401]));
        for (let i = 0; i < 50; i++) await t.request('GET', '/v1/events', { key: 'tc_flood_0' });
        // the budget was partly spent by the probe above; it refills by one every 2 s
        expect(lookups.mock.calls.length).toBeLessThanOrEqual(UNKNOWN_KEY_LOOKUPS_PER_MINUTE + 5);
        const valid = await t.createProject('after-flood');
        expect((await t.request('GET', '/v1/events', { key: valid.apiKey })).status).toBe(200);
      } finally {
        lookups.mockRestore();
      }
    });
  });

  describe('behind a trusted proxy (TRUST_PROXY names it), wrong keys from many forwarded addresses', () => {
    let t: TestApp;
    let replica: TestApp;
    beforeAll(async () => {
      // the test client connects from loopback: it plays the proxy, and X-Forwarded-For says who the client is
      t = await startTestApp({ TRUST_PROXY: '127.0.0.1', RATE_LIMIT_REQUESTS: '0' });
      replica = await startTestApp({ TRUST_PROXY: '127.0.0.1', RATE_LIMIT_REQUESTS: '0', ROLES: 'api' }, { sharing: t });
    });
    afterAll(async () => {
      await replica.close();
      await t.close();
    });

    it('costs bounded lookups for 300 wrong keys from 300 forwarded addresses, and serves the victim address after', async () => {
      const victim = await t.createProject('victim-behind-proxy');
      const lookups = jest.spyOn(t.app.get(ProjectRepository), 'findProjectByKeyHash');
      try {
        const flood = await statusesOf(
          Array.from(
            { length: 300 },
            (_, i) => () =>
              t.request('GET', '/v1/tools', {
                key: `tc_spread_${i}`,
                headers: { 'x-forwarded-for': `198.51.100.${i % 250}, 203.0.113.${i % 200}` },
              }),
          ),
        );
        expect(new Set(flood)).toEqual(new Set([401]));
        expect(lookups.mock.calls.length).toBeLessThanOrEqual(UNKNOWN_KEY_LOOKUPS_PER_MINUTE + 5);
      } finally {
        lookups.mockRestore();
      }
      // the address that sent the most wrong keys shares it with a valid client
      const headers = { 'x-forwarded-for': '203.0.113.7' };
      for (let i = 0; i < 40; i++) expect((await t.request('GET', '/v1/tools', { key: `tc_same_${i}`, headers })).status).toBe(401);
      expect((await t.request('GET', '/v1/tools', { key: victim.apiKey, headers })).status).toBe(200);
    });

    it('serves keys created on another replica after the flood spent the budget: the creation is announced', async () => {
      const flood = await statusesOf(Array.from({ length: 100 }, (_, i) => () => t.request('GET', '/v1/tools', { key: `tc_more_${i}` })));
      expect(new Set(flood)).toEqual(new Set([401]));
      const listener = new RedisBroadcast(t.config.redis, keyChangesChannelName(t.config.queuePrefix), createRootLogger('silent'));
      const heard = new Set<string>();
      await listener.subscribe({ onMessage: (message) => heard.add(message), onMaybeMissed: () => undefined });
      try {
        const created = await Promise.all(['replica-a', 'replica-b', 'replica-c'].map((name) => replica.createProject(name)));
        // the creations reached Redis's subscribers (this listener subscribed after the app, so the app heard them first)
        for (const { apiKey } of created) {
          const message = keyChangeMessage({ kind: 'created', keyHash: hashApiKey(apiKey) });
          await eventually(async () => (heard.has(message) ? true : undefined), 5000, 10);
        }
        for (const { apiKey } of created) {
          expect((await t.request('GET', '/v1/tools', { key: apiKey, headers: { 'x-forwarded-for': '198.51.100.1' } })).status).toBe(200);
        }
      } finally {
        listener.close();
      }
    });
  });
});
