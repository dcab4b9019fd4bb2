import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { AlertEvaluationService } from '../../src/alerts/alert-evaluation.service';
import { QueueProducer } from '../../src/infra/queue/queue.producer';
import { anErrorEvent, anEvent } from '../factories/event.factory';
import { sendEvents } from '../support/send-events';
import { eventually, startTestApp, TestApp } from '../support/test-app';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the example is the plain CommonJS a receiver would paste
const { isFromToolcoach } = require('../../examples/alerts/verify-signature') as {
  isFromToolcoach: (secret: string, headers: Record<string, unknown>, rawBody: string) => boolean;
};

const HOUR_MS = 3_600_000;

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver of the test's own on a free loopback port, answering `status()` and keeping what it got. */
async function startReceiver(status: () => number) {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(status(), { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/toolcoach`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** What a receiver does: the verification code docs/alerts.md shows, run as it is shown. */
function isSignedBy(secret: string, message: Received): boolean {
  return isFromToolcoach(secret, message.headers, message.body);
}

describe('alerts', () => {
  let t: TestApp;
  let evaluation: AlertEvaluationService;
  const now = new Date();
  const alertsIdle = async () => {
    const counts = await t.app.get(QueueProducer).alerts.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    return Object.values(counts).every((n) => n === 0) ? true : undefined;
  };

  beforeAll(async () => {
    // the receivers listen on loopback: this server allows private destinations, the one below does not
    t = await startTestApp({
      ALERT_ALLOW_PRIVATE_DESTINATIONS: 'true',
      ALERT_EVALUATION_INTERVAL_MS: String(HOUR_MS),
      ALERT_DELIVERY_ATTEMPTS: '3',
      ALERT_DELIVERY_BACKOFF_MS: '50',
    });
    evaluation = t.app.get(AlertEvaluationService);
  });
  afterAll(() => t.close());

  it('sends exactly one signed notification when an incident opens and one when it resolves', async () => {
    const receiver = await startReceiver(() => 204);
    try {
      const destination = await t.request('POST', '/v1/alerts/destinations', { body: { name: 'ops', kind: 'webhook', url: receiver.url } });
      expect(destination.status).toBe(201);
      expect(destination.body).toMatchObject({ kind: 'webhook', status: 'active', secret: expect.stringMatching(/^whsec_/) });
      const secret: string = destination.body.secret;
      expect((await t.request('GET', `/v1/alerts/destinations/${destination.body.id}`)).body).not.toHaveProperty('secret');

      const rule = await t.request('POST', '/v1/alerts/rules', {
        body: { name: 'search failing', kind: 'success_rate_below', threshold: 90, minCalls: 10, windowHours: 1, cooldownMinutes: 60 },
      });
      expect(rule.status).toBe(201);
      const occurredAt = now.toISOString();
      await sendEvents(t, [
        ...Array.from({ length: 12 }, () => anEvent({ tool: 'search', occurredAt })),
        ...Array.from({ length: 8 }, () => anErrorEvent('upstream timed out', { tool: 'search', occurredAt })),
        ...Array.from({ length: 20 }, () => anEvent({ tool: 'healthy', occurredAt })),
      ]);

      expect(await evaluation.evaluateWindow(now)).toMatchObject({ opened: 1, resolved: 0, notifications: 1 });
      // the same window again, as a second worker would: nothing more
      expect(await evaluation.evaluateWindow(new Date(now.getTime() + 1))).toBeNull();
      await eventually(async () => (receiver.received.length === 1 ? true : undefined));
      const opened = receiver.received[0];
      expect(isSignedBy(secret, opened)).toBe(true);
      expect(isSignedBy('whsec_someone-else', opened)).toBe(false);
      expect(JSON.parse(opened.body)).toMatchObject({
        type: 'incident.opened',
        projectId: t.projectId,
        summary: 'Tool "search" succeeded in 60% of 20 calls (below 90%)',
        incident: { ruleId: rule.body.id, subject: 'tool:search', tool: 'search', status: 'open', details: { calls: 20, errors: 8 } },
      });
      const open = await t.request('GET', '/v1/alerts/incidents?status=open');
      expect(open.body.items).toEqual([expect.objectContaining({ subject: 'tool:search', ruleName: 'search failing', isNotified: true })]);

      // an hour later the calls are still in the window: the incident stays open and nothing is sent
      expect(await evaluation.evaluateWindow(new Date(now.getTime() + HOUR_MS))).toMatchObject({ opened: 0, resolved: 0 });
      // three hours later they are not: resolved, one notification
      expect(await evaluation.evaluateWindow(new Date(now.getTime() + 3 * HOUR_MS))).toMatchObject({ opened: 0, resolved: 1 });
      await eventually(async () => (receiver.received.length === 2 ? true : undefined));
      const resolved = receiver.received[1];
      expect(isSignedBy(secret, resolved)).toBe(true);
      expect(JSON.parse(resolved.body)).toMatchObject({
        type: 'incident.resolved',
        incident: { subject: 'tool:search', status: 'resolved' },
      });

      await evaluation.evaluateWindow(new Date(now.getTime() + 4 * HOUR_MS));
      await eventually(alertsIdle);
      expect(receiver.received).toHaveLength(2);
      expect((await t.request('GET', '/v1/alerts/incidents?status=open')).body.items).toEqual([]);
      const log = await t.request('GET', `/v1/alerts/deliveries?destinationId=${destination.body.id}`);
      expect(log.body.items.map((d: { event: string; outcome: string; statusCode: number }) => [d.event, d.outcome, d.statusCode])).toEqual(
        [
          ['resolved', 'delivered', 204],
          ['opened', 'delivered', 204],
        ],
      );
      await t.request('PATCH', `/v1/alerts/rules/${rule.body.id}`, { body: { isEnabled: false } });
    } finally {
      await receiver.close();
    }
  });

  it('retries a receiver that answers 500 with backoff, and the delivery log shows every attempt', async () => {
    const receiver = await startReceiver(() => 500);
    const other = await t.createProject(`alerts-500-${Date.now()}`);
    const asOther = { key: other.apiKey };
    try {
      const destination = await t.request('POST', '/v1/alerts/destinations', {
        ...asOther,
        body: { name: 'broken', kind: 'webhook', url: receiver.url },
      });
      expect(destination.status).toBe(201);
      const rule = await t.request('POST', '/v1/alerts/rules', {
        ...asOther,
        body: { name: 'unregistered', kind: 'unregistered_tool', minCalls: 1 },
      });
      expect(rule.status).toBe(201);
      const at = new Date(now.getTime() + 10 * HOUR_MS);
      await sendEvents(
        {
          request: (method, path, options = {}) => t.request(method, path, { ...options, ...asOther }),
          db: t.db,
          projectId: other.projectId,
        },
        [anEvent({ tool: 'ghost_tool', occurredAt: new Date(at.getTime() - 60_000).toISOString() })],
      );
      expect(await evaluation.evaluateWindow(at)).toMatchObject({ opened: 1, notifications: 1 });

      const attempts = await eventually(async () => {
        const log = await t.request('GET', '/v1/alerts/deliveries', asOther);
        return log.body.items.length === 3 ? log.body.items : undefined;
      });
      expect(attempts.map((d: { attempt: number }) => d.attempt)).toEqual([3, 2, 1]);
      for (const attempt of attempts) {
        expect(attempt).toMatchObject({ event: 'opened', outcome: 'failed', statusCode: 500, error: 'answered 500' });
        expect(attempt.latencyMs).toEqual(expect.any(Number));
      }
      expect(new Set(attempts.map((d: { notificationId: string }) => d.notificationId)).size).toBe(1);
      await eventually(async () => ((await t.app.get(QueueProducer).alerts.getJobCounts('failed')).failed >= 1 ? true : undefined));
      expect(receiver.received).toHaveLength(3);
      // the other project sees none of it
      expect(
        (await t.request('GET', '/v1/alerts/deliveries')).body.items.every(
          (d: { destinationId: string }) => d.destinationId !== destination.body.id,
        ),
      ).toBe(true);

      const failing = await t.request('GET', `/v1/alerts/destinations/${destination.body.id}`, asOther);
      expect(failing.body.status).toBe('failing');
      // failing for a day: the next failure pauses it, and a paused destination is shown as such
      await t.db.sql.query(`UPDATE alert_destinations SET failing_since = now() - interval '25 hours' WHERE id = $1`, [
        destination.body.id,
      ]);
      const test = await t.request('POST', `/v1/alerts/destinations/${destination.body.id}/test`, asOther);
      expect(test.body).toMatchObject({ delivered: false, outcome: 'failed', statusCode: 500 });
      const paused = await t.request('GET', '/v1/alerts/destinations', asOther);
      expect(paused.body.items).toEqual([
        expect.objectContaining({ id: destination.body.id, status: 'paused', pausedAt: expect.any(String) }),
      ]);
      const resumed = await t.request('PATCH', `/v1/alerts/destinations/${destination.body.id}`, { ...asOther, body: { isPaused: false } });
      expect(resumed.body).toMatchObject({ status: 'active', pausedAt: null, failingSince: null });
    } finally {
      await receiver.close();
    }
  });

  it('answers the test route with the delivery outcome of a healthy receiver', async () => {
    const receiver = await startReceiver(() => 200);
    try {
      const slack = await t.request('POST', '/v1/alerts/destinations', { body: { name: 'slack', kind: 'slack', url: receiver.url } });
      const test = await t.request('POST', `/v1/alerts/destinations/${slack.body.id}/test`);
      expect(test.status).toBe(200);
      expect(test.body).toMatchObject({ delivered: true, outcome: 'delivered', statusCode: 200, error: null });
      expect(JSON.parse(receiver.received[0].body)).toEqual({
        text: expect.stringMatching(/^:wave: toolcoach test notification: Test notification/),
      });
      await t.request('DELETE', `/v1/alerts/destinations/${slack.body.id}`);
    } finally {
      await receiver.close();
    }
  });

  it.each([
    [
      'a success-rate rule without a threshold',
      { name: 'r', kind: 'success_rate_below' },
      '/threshold',
      'is required for success_rate_below (a percentage)',
    ],
    ['an unknown kind', { name: 'r', kind: 'latency' }, '/kind', expect.stringMatching(/^must be one of "success_rate_below"/)],
    ['an unknown field', { name: 'r', kind: 'new_error_group', every: '5m' }, '/every', 'is not a known field'],
    ['a threshold over 100', { name: 'r', kind: 'success_rate_below', threshold: 101 }, '/threshold', 'must be <= 100'],
  ])('refuses %s with 400 invalid_rule naming the field', async (_case, body, path, message) => {
    const response = await t.request('POST', '/v1/alerts/rules', { body });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_rule', details: expect.arrayContaining([{ path, message }]) });
  });

  it('answers 404 for a rule or destination of another project or an id that is not one', async () => {
    const other = await t.createProject(`alerts-404-${Date.now()}`);
    const rule = await t.request('POST', '/v1/alerts/rules', {
      key: other.apiKey,
      body: { name: 'theirs', kind: 'regressed_error_group' },
    });
    expect((await t.request('GET', `/v1/alerts/rules/${rule.body.id}`)).status).toBe(404);
    expect((await t.request('DELETE', `/v1/alerts/rules/${rule.body.id}`)).status).toBe(404);
    expect((await t.request('GET', '/v1/alerts/destinations/not-a-uuid')).status).toBe(404);
    expect((await t.request('GET', '/v1/alerts/deliveries?cursor=garbage')).status).toBe(400);
  });
});

describe('alert destinations on a server that does not allow private destinations (the default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ROLES: 'api' });
  });
  afterAll(() => t.close());

  it.each([
    ['a loopback address', 'http://127.0.0.1:9/hook'],
    ['localhost', 'http://localhost:9/hook'],
    ['an IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]:9/hook'],
    ['IPv6 loopback', 'http://[::1]:9/hook'],
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data'],
    ['a private network address', 'https://10.0.0.8/hook'],
  ])('refuses %s with 400 invalid_destination naming /url', async (_case, url) => {
    const response = await t.request('POST', '/v1/alerts/destinations', { body: { name: 'x', kind: 'webhook', url } });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({
      code: 'invalid_destination',
      details: [{ path: '/url', message: expect.stringContaining('private destinations are not allowed') }],
    });
  });

  it('refuses a URL that is not http(s) or carries credentials', async () => {
    for (const [url, message] of [
      ['file:///etc/passwd', 'must be an absolute http:// or https:// URL'],
      ['https://user:pass@example.com/hook', 'must not carry a user name or password'],
    ]) {
      const response = await t.request('POST', '/v1/alerts/destinations', { body: { name: 'x', kind: 'webhook', url } });
      expect(response.status).toBe(400);
      expect(response.body.error.details).toEqual([{ path: '/url', message }]);
    }
    expect((await t.request('GET', '/v1/alerts/destinations')).body.items).toEqual([]);
  });
});
