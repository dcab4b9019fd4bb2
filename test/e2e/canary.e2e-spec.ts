import { randomUUID } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { runNightly } from '../support/job-runs';
import { sendEvents } from '../support/send-events';
import { eventually, startTestApp, TestApp } from '../support/test-app';

const D1 = '2026-03-01';
const D2 = '2026-03-02';
const SESSIONS = 40;
const CALLS_PER_SESSION = 5;

/** A webhook receiver of the test's own on a free loopback port, keeping every body it got. */
async function startReceiver() {
  const bodies: Array<Record<string, unknown>> = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/toolcoach`;
  return { url, bodies, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * Guarded rollout end to end with the split design (a project's choice; the default alternates, see
 * rollout-shapes.e2e-spec.ts): canaries served by sticky id, judged by the nightly, rolled back or promoted by themselves.
 */
describe('canary rollout of description versions (split design)', () => {
  let t: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    // the receiver listens on loopback
    t = await startTestApp({ ALERT_ALLOW_PRIVATE_DESTINATIONS: 'true', ALERT_DELIVERY_BACKOFF_MS: '50' });
    receiver = await startReceiver();
    const destination = await t.request('POST', '/v1/alerts/destinations', { body: { name: 'ops', kind: 'webhook', url: receiver.url } });
    expect(destination.status).toBe(201);
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  const at = (day: string, i: number) => new Date(Date.parse(`${day}T08:00:00Z`) + i * 1000).toISOString();
  const today = () => new Date().toISOString().slice(0, 10);
  /** A prime_factorization call; the mistake passes 'numbers' (a list) where the tool takes one 'number'. */
  type CallMaker = (occurredAt: string, isMistake: boolean, version: number, sessionId?: string) => Record<string, unknown>;
  const primeCall: CallMaker = (occurredAt, isMistake, version, sessionId) => ({
    id: randomUUID(),
    tool: 'prime_factorization',
    occurredAt,
    descriptionVersion: version,
    sessionId,
    ...(isMistake
      ? { status: 'error', arguments: { numbers: [12, 15] }, error: { type: 'ToolException', message: 'Tool execution failed' } }
      : { status: 'success', arguments: { number: 12 }, result: [2, 2, 3] }),
  });
  const description = (tool: string, sticky: Record<string, string> = {}, query = '') =>
    t.request('GET', `/v1/tools/${tool}/description${query}`, { headers: sticky });
  const session = (id: string) => ({ 'x-toolcoach-session': id });
  const canaryOf = async (tool: string) => (await t.request('GET', `/v1/rollout/canaries?tool=${tool}`)).body.items[0];
  const notification = (type: string) => eventually(async () => receiver.bodies.find((body) => body.type === type));

  /**
   * Scripted agents, one per session: before each call the agent fetches the description with its session id and
   * calls with the version it was served; `mistakeEvery(version)` says how often it makes the mistake on that version.
   * Answers the calls and mistakes per version it sent.
   */
  async function runAgents(tool: string, day: string, mistakeEvery: (version: number) => number, makeCall: CallMaker = primeCall) {
    const sent = new Map<number, { calls: number; mistakes: number }>();
    const events = [];
    for (let s = 0; s < SESSIONS; s++) {
      const sessionId = `${tool}-agent-${s}`;
      const versions = new Set<number>();
      for (let c = 0; c < CALLS_PER_SESSION; c++) {
        const served = await description(tool, session(sessionId));
        expect(served.status).toBe(200);
        const version: number = served.body.version;
        versions.add(version);
        const i = s * CALLS_PER_SESSION + c;
        const isMistake = i % mistakeEvery(version) === 0;
        const side = sent.get(version) ?? { calls: 0, mistakes: 0 };
        sent.set(version, { calls: side.calls + 1, mistakes: side.mistakes + (isMistake ? 1 : 0) });
        events.push(
          makeCall(day === 'today' ? new Date(Date.now() - 60_000 + i).toISOString() : at(day, i), isMistake, version, sessionId),
        );
      }
      // an agent keeps its variant across calls
      expect(versions.size).toBe(1);
    }
    await sendEvents(t, events);
    return sent;
  }

  it('starts a warning the nightly applies by itself as a canary, served by sticky id; ?version= still pins', async () => {
    expect((await t.request('GET', '/v1/rollout/policy')).body).toEqual({
      enabled: true,
      share: 0.2,
      minCalls: 100,
      design: 'alternating',
    });
    const policy = await t.request('PUT', '/v1/rollout/policy', { body: { enabled: true, share: 0.5, minCalls: 40, design: 'split' } });
    expect(policy.status).toBe(200);
    // the nightly applies one kind of warning by itself here: the one the agents are scripted around
    const autoApply = await t.request('PUT', '/v1/policy', {
      body: { autoApply: true, minOccurrences: 5, minShare: 0.05, autoApplyKinds: ['wrong_argument_name'], autoRetire: true },
    });
    expect(autoApply.status).toBe(200);
    const registered = await t.request('PUT', '/v1/tools/prime_factorization', {
      body: {
        description: 'Perform prime factorization of a single integer.',
        parameters: { type: 'object', properties: { number: { type: 'integer' } }, required: ['number'], additionalProperties: false },
      },
    });
    expect(registered.status).toBe(201);
    await sendEvents(
      t,
      Array.from({ length: 40 }, (_, i) => primeCall(at(D1, i), i % 4 === 0, 1)),
    );
    const run = await runNightly(t, D1);
    expect(run.body).toMatchObject({ status: 'succeeded', counts: { applied: 1 } });

    const canary = await canaryOf('prime_factorization');
    expect(canary).toMatchObject({
      status: 'running',
      design: 'split',
      looks: 0,
      previousVersion: 1,
      canaryVersion: 2,
      share: 0.5,
      minCalls: 40,
      decision: null,
    });
    expect(canary.startedAt).toBe(`${D2}T00:00:00.000Z`);
    // the user sees when it is decided at the latest
    expect(canary.expectedDecision).toMatchObject({ atLatestLook: 7, nightlyRunsLeft: 7, text: expect.stringContaining('look 7') });

    // a caller without a sticky id cannot stick: it keeps the previous version
    const anonymous = await description('prime_factorization');
    expect(anonymous.body.version).toBe(1);
    expect(anonymous.headers.get('vary')).toBe('X-Toolcoach-Session, X-Toolcoach-Agent');

    const sides = new Map<number, string>();
    for (let i = 0; sides.size < 2 && i < 64; i++) {
      const id = `probe-${i}`;
      sides.set((await description('prime_factorization', session(id))).body.version, id);
    }
    expect([...sides.keys()].sort()).toEqual([1, 2]);
    const onCanary = sides.get(2)!;
    const onPrevious = sides.get(1)!;
    const canaryAnswer = await description('prime_factorization', session(onCanary));
    const previousAnswer = await description('prime_factorization', session(onPrevious));
    expect(canaryAnswer.body.description).toContain("Do not pass 'numbers'");
    expect(previousAnswer.body.description).not.toContain("Do not pass 'numbers'");
    expect(canaryAnswer.headers.get('etag')).not.toBe(previousAnswer.headers.get('etag'));
    // the ETag revalidates its own variant only
    const etag = canaryAnswer.headers.get('etag')!;
    expect((await description('prime_factorization', { ...session(onCanary), 'if-none-match': etag })).status).toBe(304);
    expect((await description('prime_factorization', { ...session(onPrevious), 'if-none-match': etag })).status).toBe(200);
    // the query parameters stick like the headers; the agent id is used when there is no session
    expect((await description('prime_factorization', {}, `?session=${onCanary}`)).body.version).toBe(2);
    expect((await description('prime_factorization', { 'x-toolcoach-agent': onCanary })).body.version).toBe(2);
    // a pinned version is exactly that version, whichever side the caller is on
    expect((await description('prime_factorization', session(onCanary), '?version=1')).body.version).toBe(1);
    expect((await description('prime_factorization', session(onPrevious), '?version=2')).body.version).toBe(2);
    // the list serves each caller the same variant as the description route
    const listed = async (id: string) =>
      (await t.request('GET', '/v1/tools', { headers: session(id) })).body.tools.find(
        (tool: { name: string }) => tool.name === 'prime_factorization',
      );
    expect((await listed(onCanary)).version).toBe(2);
    expect((await listed(onPrevious)).version).toBe(1);
  });

  it('rolls back by itself a canary that makes the scripted agents worse, with its numbers, and says so', async () => {
    // on the canary every second call makes the mistake, on the previous version every tenth
    const sent = await runAgents('prime_factorization', D2, (version) => (version === 2 ? 2 : 10));
    expect(sent.get(1)!.calls).toBeGreaterThanOrEqual(40);
    expect(sent.get(2)!.calls).toBeGreaterThanOrEqual(40);

    const run = await runNightly(t, D2);
    expect(run.body).toMatchObject({ status: 'succeeded', counts: { canariesRolledBack: 1, canariesPromoted: 0 } });

    const canary = await canaryOf('prime_factorization');
    // the previous side counts the day before the canary started too: D1's 40 calls, 10 of them the mistake
    const previous = { calls: sent.get(1)!.calls + 40, mistakes: sent.get(1)!.mistakes + 10 };
    expect(canary).toMatchObject({
      status: 'rolled_back',
      decision: {
        action: 'roll_back',
        counted: 'matched_mistakes',
        design: 'split',
        look: 1,
        verdict: 'worse',
        decidedFor: D2,
        canary: { version: 2, ...sent.get(2) },
        previous: { version: 1, ...previous },
        warnings: [expect.objectContaining({ warningId: expect.any(String), action: 'roll_back', rule: 'harm' })],
      },
    });
    expect(canary.decision.pValue).toBeLessThan(0.05);

    // every agent, whatever its side, is served the description without the warning again
    const after = await description('prime_factorization', session('prime_factorization-agent-0'));
    expect(after.body.version).toBe(3);
    expect(after.body.description).toBe('Perform prime factorization of a single integer.');
    const warnings = (await t.request('GET', '/v1/tools/prime_factorization/warnings')).body.warnings;
    expect(warnings).toEqual([expect.objectContaining({ id: canary.warningId, status: 'dismissed', dismissedReason: 'rolled_back' })]);
    const recommendations = (await t.request('GET', '/v1/recommendations?tool=prime_factorization')).body.items;
    expect(recommendations.find((r: { warningId: string | null }) => r.warningId === canary.warningId)).toMatchObject({
      kind: 'wrong_argument_name',
      status: 'dismissed',
      effect: { rolledBack: true, verdict: 'worse' },
    });
    // the decision is on the version history
    const history = (await t.request('GET', '/v1/tools/prime_factorization/version-history')).body.items;
    expect(history.map((v: { version: number; rollout: { status: string } | null }) => [v.version, v.rollout?.status ?? null])).toEqual([
      [3, null],
      [2, 'rolled_back'],
      [1, null],
    ]);
    expect(history[1].rollout.decision).toEqual(canary.decision);

    const alert = await notification('rollout.rolled_back');
    expect(alert).toMatchObject({
      projectId: t.projectId,
      incident: null,
      rollout: { canaryId: canary.id, tool: 'prime_factorization', status: 'rolled_back', decision: canary.decision },
    });

    // the next night does not apply it again
    expect((await runNightly(t, D2)).body.counts).toMatchObject({ applied: 0 });
    expect((await description('prime_factorization')).body.version).toBe(3);
  });

  it('promotes by itself a canary a manual warning opted into once it helped, and serves it to everyone', async () => {
    // this night only judges the canary: no new warnings
    const autoApply = await t.request('PUT', '/v1/policy', {
      body: { autoApply: false, minOccurrences: 5, minShare: 0.05, autoApplyKinds: [], autoRetire: false },
    });
    expect(autoApply.status).toBe(200);
    expect(
      (
        await t.request('PUT', '/v1/tools/search', {
          body: { description: 'Search the catalogue.', parameters: { type: 'object', properties: { query: { type: 'string' } } } },
        })
      ).status,
    ).toBe(201);
    const bad = await t.request('POST', '/v1/tools/search/warnings', { body: { text: 'Quote phrases.', canary: 'yes' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([expect.objectContaining({ path: '/canary' })]);
    const added = await t.request('POST', '/v1/tools/search/warnings', { body: { text: 'Quote phrases.', canary: true } });
    expect(added.status).toBe(201);
    expect(await canaryOf('search')).toMatchObject({
      status: 'running',
      previousVersion: 1,
      canaryVersion: 2,
      warningId: added.body.warning.id,
    });

    // fewer failures on the canary: every twentieth call fails there, every third on the previous version
    const searchCall: CallMaker = (occurredAt, isMistake, version, sessionId) => ({
      id: randomUUID(),
      tool: 'search',
      occurredAt,
      descriptionVersion: version,
      sessionId,
      arguments: { query: 'red shoes' },
      ...(isMistake ? { status: 'error', error: { type: 'Error', message: 'upstream timed out' } } : { status: 'success', result: [] }),
    });
    const sent = await runAgents('search', 'today', (version) => (version === 2 ? 20 : 3), searchCall);

    const run = await runNightly(t, today());
    expect(run.body).toMatchObject({ status: 'succeeded', counts: { canariesPromoted: 1 } });
    const canary = await canaryOf('search');
    expect(canary).toMatchObject({
      status: 'promoted',
      decision: {
        action: 'promote',
        counted: 'errors',
        verdict: 'helped',
        canary: { version: 2, ...sent.get(2) },
        previous: { version: 1, ...sent.get(1) },
      },
    });
    for (const sticky of [{}, session('search-agent-0'), session('search-agent-1'), session('search-agent-2')]) {
      expect((await description('search', sticky)).body.version).toBe(2);
    }
    expect(await notification('rollout.promoted')).toMatchObject({ rollout: { canaryId: canary.id, status: 'promoted' } });
  });

  it('tells the alert destinations when a person stops a canary, as when the nightly decides one', async () => {
    const added = await t.request('POST', '/v1/tools/search/warnings', { body: { text: 'Name the catalogue.', canary: true } });
    expect(added.status).toBe(201);
    const canary = await canaryOf('search');
    expect(canary).toMatchObject({ status: 'running', warningId: added.body.warning.id });
    expect((await t.request('POST', `/v1/rollout/canaries/${canary.id}/stop`)).status).toBe(200);
    const alert = await eventually(async () =>
      receiver.bodies.find((body) => body.type === 'rollout.rolled_back' && (body.rollout as { canaryId?: string }).canaryId === canary.id),
    );
    expect(alert).toMatchObject({
      projectId: t.projectId,
      rollout: { tool: 'search', status: 'rolled_back', decision: { action: 'roll_back', reason: 'stopped by hand', by: 'api' } },
    });
    expect(alert.summary).toContain('rolled back (stopped by hand)');
  });

  it('refuses a bad rollout policy naming the field', async () => {
    const response = await t.request('PUT', '/v1/rollout/policy', { body: { enabled: true, share: 1.5, minCalls: 40 } });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_policy', details: [expect.objectContaining({ path: '/share' })] });
  });
});
