import { Toolcoach, ToolcoachOptions } from '../src';
import { parseRetryAfterMs } from '../src/reporter';
import { closedPortUrl, ScriptedServer } from './scripted-server';

const quiet = { warn: jest.fn() };
let server: ScriptedServer;
const clients: Toolcoach[] = [];

function client(options: Partial<ToolcoachOptions> = {}): Toolcoach {
  const tc = new Toolcoach({
    baseUrl: server.baseUrl,
    apiKey: 'tc_test',
    flushIntervalMs: 60_000,
    cacheDir: false,
    flushOnExit: false,
    logger: quiet,
    ...options,
  });
  clients.push(tc);
  return tc;
}

const call = (i: number) => ({ tool: 'add', status: 'success' as const, arguments: { a: i }, result: i });

beforeEach(async () => {
  server = await ScriptedServer.start();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((tc) => tc.shutdown(100)));
  await server.close();
});

describe('batching', () => {
  it('sends a batch as soon as batchSize events are queued, and the rest on flush', async () => {
    const tc = client({ batchSize: 3 });
    for (let i = 0; i < 7; i++) tc.report(call(i));
    await server.waitForRequests(2);
    expect(server.requests.map((r) => r.body.events.length)).toEqual([3, 3]);
    await tc.flush();
    expect(server.requests.map((r) => r.body.events.length)).toEqual([3, 3, 1]);
    expect(server.events.map((e) => e.arguments.a)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(tc.stats()).toMatchObject({ queued: 0, sent: 7, dropped: 0 });
  });

  it('sends a partial batch when the flush interval passes', async () => {
    const tc = client({ batchSize: 100, flushIntervalMs: 50 });
    tc.report(call(1));
    tc.report(call(2));
    await server.waitForRequests(1, 2000);
    expect(server.requests[0].body.events).toHaveLength(2);
  });

  it('sends the events in the wire format with an id, occurredAt, the key and the client identity', async () => {
    const tc = client({ agent: 'math-agent' });
    tc.report({ tool: 'add', status: 'error', arguments: { a: 1 }, error: { type: 'TypeError', message: 'boom' } });
    await tc.flush();
    const [request] = server.requests;
    expect(request.url).toBe('/v1/events');
    expect(request.headers.authorization).toBe('Bearer tc_test');
    expect(request.body.client).toEqual({ sdk: '@toolcoach/sdk', version: expect.any(String), dropped: 0 });
    expect(request.body.events[0]).toEqual({
      id: expect.any(String),
      tool: 'add',
      status: 'error',
      arguments: { a: 1 },
      error: { type: 'TypeError', message: 'boom' },
      agent: 'math-agent',
      occurredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('splits a batch the server finds too large (413) and sends both halves', async () => {
    server.answerNext({ status: 413, body: { error: { code: 'payload_too_large' } } });
    const tc = client({ batchSize: 4 });
    for (let i = 0; i < 4; i++) tc.report(call(i));
    await tc.flush();
    expect(server.requests.map((r) => r.body.events.length)).toEqual([4, 2, 2]);
    expect(tc.stats()).toMatchObject({ sent: 4, dropped: 0 });
  });

  it('counts events the server refuses as invalid and does not send them again', async () => {
    server.answerNext({ status: 400, body: { error: { code: 'invalid_events' } } });
    const tc = client();
    tc.report(call(1));
    await tc.flush();
    await tc.flush();
    expect(server.requests).toHaveLength(1);
    expect(tc.stats()).toMatchObject({ rejected: 1, sent: 0, queued: 0 });
  });
});

describe('retries', () => {
  it('retries a failed batch with exponential backoff and jitter until it is delivered', async () => {
    server.answerNext({ status: 500 }, { status: 502 });
    const tc = client({ flushIntervalMs: 20, initialBackoffMs: 100, random: () => 1 });
    tc.report(call(1));
    await server.waitForRequests(3, 5000);
    const [first, second, third] = server.requests.map((r) => r.atMs);
    expect(second - first).toBeGreaterThanOrEqual(90);
    expect(third - second).toBeGreaterThanOrEqual(190);
    await tc.flush();
    expect(tc.stats()).toMatchObject({ sent: 1, retries: 2, queued: 0 });
    // The same ids are sent again, so the server's idempotency keeps retries from duplicating events.
    expect(new Set(server.events.map((e) => e.id)).size).toBe(1);
  });

  it('waits as long as Retry-After says on 503 and 429', async () => {
    server.answerNext({ status: 503, headers: { 'retry-after': '1' } }, { status: 429, headers: { 'retry-after': '0.3' } });
    const tc = client({ flushIntervalMs: 20, initialBackoffMs: 10 });
    tc.report(call(1));
    await server.waitForRequests(3, 5000);
    const [first, second, third] = server.requests.map((r) => r.atMs);
    expect(second - first).toBeGreaterThanOrEqual(950);
    expect(third - second).toBeGreaterThanOrEqual(280);
    await tc.flush();
    expect(tc.stats().sent).toBe(1);
  });

  it('drops and counts a batch after maxAttempts failures, then reports the loss with the next batch', async () => {
    server.answerNext({ status: 500 }, { status: 500 });
    const tc = client({ maxAttempts: 2, initialBackoffMs: 10 });
    tc.report(call(1));
    await tc.flush(3000);
    expect(tc.stats()).toMatchObject({ dropped: 1, sent: 0, queued: 0 });
    tc.report(call(2));
    await tc.flush();
    expect(server.requests.at(-1)!.body.client.dropped).toBe(1);
    expect(server.requests.at(-1)!.body.events.map((e: { arguments: { a: unknown } }) => e.arguments.a)).toEqual([2]);
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfterMs('2')).toBe(2000);
    expect(parseRetryAfterMs(new Date(10_000).toUTCString(), 4000)).toBe(6000);
    expect(parseRetryAfterMs('soon')).toBeUndefined();
    expect(parseRetryAfterMs(null)).toBeUndefined();
  });
});

describe('bounded buffer', () => {
  it('drops the oldest events on overflow, counts them, and tells the server with the next batch', async () => {
    const tc = client({ maxQueuedEvents: 5, batchSize: 100 });
    for (let i = 0; i < 8; i++) tc.report(call(i));
    expect(tc.stats()).toMatchObject({ queued: 5, dropped: 3 });
    await tc.flush();
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].body.client.dropped).toBe(3);
    expect(server.events.map((e) => e.arguments.a)).toEqual([3, 4, 5, 6, 7]);
    tc.report(call(8));
    await tc.flush();
    // Once the server was told, the count is not sent again.
    expect(server.requests[1].body.client.dropped).toBe(0);
    expect(tc.stats()).toMatchObject({ dropped: 3, sent: 6 });
  });

  it('keeps queueing without blocking or throwing while the server is down', async () => {
    const tc = client({ baseUrl: await closedPortUrl(), maxQueuedEvents: 100, batchSize: 10, initialBackoffMs: 50 });
    const startedAt = performance.now();
    for (let i = 0; i < 1000; i++) tc.report(call(i));
    // report() never waits for the network: 1,000 calls against a closed port take ~1 ms; 1,000 reports that each
    // waited for a refused connection would take a second or more (a bound a machine busy with other test files meets)
    expect(performance.now() - startedAt).toBeLessThan(500);
    const result = await tc.flush(300);
    expect(result.isComplete).toBe(false);
    const stats = tc.stats();
    expect(stats.queued).toBeLessThanOrEqual(100);
    expect(stats.dropped).toBeGreaterThanOrEqual(900);
    expect(stats.lastError).toMatch(/ECONNREFUSED/);
  });

  it('drops an event that cannot be serialized instead of throwing into the agent', async () => {
    const tc = client();
    expect(() => tc.report({ tool: 'add', status: 'success', result: { total: BigInt(1) } })).not.toThrow();
    tc.report(call(1));
    await tc.flush();
    expect(server.events).toHaveLength(1);
    expect(tc.stats()).toMatchObject({ dropped: 1, sent: 1 });
  });
});

describe('redaction', () => {
  it('replaces the values of secret-looking argument keys before they leave the process', async () => {
    const tc = client();
    const args = {
      query: 'weather',
      password: 'hunter2',
      nested: { apiKey: 'sk-1', 'x-api-key': 'sk-2', Authorization: 'Bearer abc', access_token: 't', max_tokens: 50 },
      list: [{ client_secret: 's' }],
    };
    tc.report({ tool: 'search', status: 'success', arguments: args, metadata: { session_token: 'x', user: 'u' } });
    await tc.flush();
    expect(server.events[0].arguments).toEqual({
      query: 'weather',
      password: '[REDACTED]',
      nested: { apiKey: '[REDACTED]', 'x-api-key': '[REDACTED]', Authorization: '[REDACTED]', access_token: '[REDACTED]', max_tokens: 50 },
      list: [{ client_secret: '[REDACTED]' }],
    });
    expect(server.events[0].metadata).toEqual({ session_token: '[REDACTED]', user: 'u' });
    // The agent's own object is untouched.
    expect(args.password).toBe('hunter2');
  });

  it('uses a custom matcher, or none when redaction is off', async () => {
    const custom = client({ redact: (key) => key === 'ssn' });
    custom.report({ tool: 't', status: 'success', arguments: { ssn: '123', password: 'p' } });
    await custom.flush();
    const off = client({ redact: false });
    off.report({ tool: 't', status: 'success', arguments: { password: 'p' } });
    await off.flush();
    expect(server.events.map((e) => e.arguments)).toEqual([{ ssn: '[REDACTED]', password: 'p' }, { password: 'p' }]);
  });
});

describe('flush and shutdown', () => {
  it('delivers everything queued on shutdown, then counts later events as dropped', async () => {
    const tc = client({ batchSize: 2 });
    for (let i = 0; i < 5; i++) tc.report(call(i));
    const result = await tc.shutdown(2000);
    expect(result).toEqual({ isComplete: true, queued: 0 });
    expect(server.events).toHaveLength(5);
    tc.report(call(99));
    expect(tc.stats()).toMatchObject({ sent: 5, dropped: 1, queued: 0 });
    // a flush sends whatever is queued: once it is done, an event that had been kept would have arrived
    expect(await tc.flush()).toEqual({ isComplete: true, queued: 0 });
    expect(server.events).toHaveLength(5);
  });

  it('gives up after the timeout when the server is too slow, and says what was left', async () => {
    server.answerNext({ status: 202, delayMs: 3000, body: { rejected: [] } });
    const tc = client();
    tc.report(call(1));
    const startedAt = Date.now();
    const result = await tc.shutdown(200);
    expect(Date.now() - startedAt).toBeLessThan(1000);
    expect(result).toEqual({ isComplete: false, queued: 1 });
    expect(quiet.warn).toHaveBeenCalledWith(expect.stringMatching(/1 events were not delivered/));
  });

  it('resolves flush at once when nothing is queued', async () => {
    const tc = client();
    await expect(tc.flush(10)).resolves.toEqual({ isComplete: true, queued: 0 });
    expect(server.requests).toHaveLength(0);
  });
});
