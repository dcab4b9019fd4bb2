import { randomUUID } from 'node:crypto';
import { runNightly } from '../support/job-runs';
import { sendEvents } from '../support/send-events';
import { eventually, startTestApp, TestApp } from '../support/test-app';

// Issue 34 finding 5, "nothing tells the user": every policy route takes a partial update; a running canary shows its
// live counts and can be promoted or stopped by hand; switching the rollout policy off ends the nightly's canaries; a
// proposed recommendation says what it waits for.

const D1 = '2026-03-01';
const PRIME_SCHEMA = { type: 'object', properties: { number: { type: 'integer' } }, required: ['number'], additionalProperties: false };

describe('partial updates of every policy route', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ROLES: 'api' });
  });
  afterAll(() => t.close());

  /** A project of its own per case: each starts on the defaults (no policy row). */
  const freshKey = async () => (await t.createProject(`partial-${randomUUID().slice(0, 8)}`)).apiKey;

  it('PUT /v1/rollout/policy {"enabled": false} keeps share and minCalls, answers the whole policy, and {} changes nothing', async () => {
    const key = await freshKey();
    const off = await t.request('PUT', '/v1/rollout/policy', { key, body: { enabled: false } });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ enabled: false, share: 0.2, minCalls: 100, design: 'alternating', endedCanaries: [] });
    const share = await t.request('PUT', '/v1/rollout/policy', { key, body: { share: 0.5 } });
    expect(share.body).toEqual({ enabled: false, share: 0.5, minCalls: 100, design: 'alternating', endedCanaries: [] });
    const empty = await t.request('PUT', '/v1/rollout/policy', { key, body: {} });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ enabled: false, share: 0.5, minCalls: 100, design: 'alternating', endedCanaries: [] });
    expect((await t.request('GET', '/v1/rollout/policy', { key })).body).toEqual({
      enabled: false,
      share: 0.5,
      minCalls: 100,
      design: 'alternating',
    });
  });

  it('PUT /v1/policy {"autoApply": false} keeps the other fields at their defaults, then at their stored values', async () => {
    const key = await freshKey();
    const defaults = (await t.request('GET', '/v1/policy', { key })).body;
    const off = await t.request('PUT', '/v1/policy', { key, body: { autoApply: false } });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ ...defaults, autoApply: false });
    const kinds = await t.request('PUT', '/v1/policy', { key, body: { autoApplyKinds: ['learned_limit'] } });
    expect(kinds.body).toEqual({ ...defaults, autoApply: false, autoApplyKinds: ['learned_limit'] });
    expect((await t.request('PUT', '/v1/policy', { key, body: {} })).body).toEqual(kinds.body);
    expect((await t.request('GET', '/v1/policy', { key })).body).toEqual(kinds.body);
  });

  it('PUT /v1/guard/policy {} answers the current policy and changes nothing; {"mode"} changes it', async () => {
    const key = await freshKey();
    expect((await t.request('PUT', '/v1/guard/policy', { key, body: {} })).body).toEqual({ mode: 'correct' });
    expect((await t.request('PUT', '/v1/guard/policy', { key, body: { mode: 'report' } })).body).toEqual({ mode: 'report' });
    expect((await t.request('PUT', '/v1/guard/policy', { key, body: {} })).body).toEqual({ mode: 'report' });
  });

  it.each([
    ['/v1/rollout/policy', { enable: false }, '/enable', 'is not a known field'],
    ['/v1/rollout/policy', { minCalls: 10 }, '/minCalls', 'must be >= 30'],
    ['/v1/policy', { autoApply: 'no' }, '/autoApply', 'must be boolean'],
    ['/v1/policy', { autoApplyKinds: ['guess'] }, '/autoApplyKinds/0', expect.stringMatching(/^must be one of /)],
    ['/v1/guard/policy', { mode: 'lenient' }, '/mode', expect.stringMatching(/^must be one of "off"/)],
    ['/v1/guard/policy', { strict: true }, '/strict', 'is not a known field'],
  ])('PUT %s %j is refused with 400 invalid_policy naming %s, and changes nothing', async (path, body, field, message) => {
    const key = await freshKey();
    const before = (await t.request('GET', path, { key })).body;
    const response = await t.request('PUT', path, { key, body });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_policy', details: [{ path: field, message }] });
    expect((await t.request('GET', path, { key })).body).toEqual(before);
  });

  it('keeps both of two partial updates of different fields sent at once, on projects with and without a stored policy', async () => {
    for (let round = 0; round < 8; round++) {
      const key = await freshKey();
      // the odd rounds already have a row, the even ones create it in the race
      if (round % 2 === 1) {
        await t.request('PUT', '/v1/rollout/policy', { key, body: { enabled: true } });
        await t.request('PUT', '/v1/policy', { key, body: { autoApply: true } });
      }
      const answers = await Promise.all([
        t.request('PUT', '/v1/rollout/policy', { key, body: { share: 0.3 } }),
        t.request('PUT', '/v1/rollout/policy', { key, body: { minCalls: 50 } }),
        t.request('PUT', '/v1/policy', { key, body: { minOccurrences: 9 } }),
        t.request('PUT', '/v1/policy', { key, body: { autoRetire: false } }),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
      expect((await t.request('GET', '/v1/rollout/policy', { key })).body).toEqual({
        enabled: true,
        share: 0.3,
        minCalls: 50,
        design: 'alternating',
      });
      expect((await t.request('GET', '/v1/policy', { key })).body).toMatchObject({ minOccurrences: 9, autoRetire: false });
    }
  });
});

describe('steering running canaries', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const at = (i: number) => new Date(Date.parse(`${D1}T08:00:00Z`) + i * 1000).toISOString();
  /** 40 calls of `tool` on D1 with version 1, every fourth passing 'numbers' where the tool takes one 'number'. */
  const primeCalls = (tool: string) =>
    Array.from({ length: 40 }, (_, i) => ({
      id: randomUUID(),
      tool,
      occurredAt: at(i),
      descriptionVersion: 1,
      ...(i % 4 === 0
        ? { status: 'error', arguments: { numbers: [12, 15] }, error: { type: 'ToolException', message: 'Tool execution failed' } }
        : { status: 'success', arguments: { number: 12 }, result: [2, 2, 3] }),
    }));
  const register = async (tool: string) => {
    const response = await t.request('PUT', `/v1/tools/${tool}`, {
      body: { description: `Perform prime factorization of a single integer (${tool}).`, parameters: PRIME_SCHEMA },
    });
    expect(response.status).toBe(201);
  };
  const addCanaryWarning = async (tool: string, text: string) => {
    const response = await t.request('POST', `/v1/tools/${tool}/warnings`, { body: { text, canary: true } });
    expect(response.status).toBe(201);
    return response.body.warning.id as string;
  };
  const canaryOf = async (tool: string) => (await t.request('GET', `/v1/rollout/canaries?tool=${tool}`)).body.items[0];
  const served = async (tool: string, sticky: Record<string, string> = {}) =>
    (await t.request('GET', `/v1/tools/${tool}/description`, { headers: sticky })).body;
  const everyone = [{}, ...Array.from({ length: 6 }, (_, i) => ({ 'x-toolcoach-session': `steer-${i}` }))];
  const waitingOf = async (tool: string) => {
    const items = (await t.request('GET', `/v1/recommendations?tool=${tool}&status=proposed`)).body.items;
    return items.find((item: { kind: string }) => item.kind === 'wrong_argument_name')?.waitingFor;
  };

  it('starts a nightly canary on prime_a, while prime_b waits for the canary a person started, and says so', async () => {
    for (const tool of ['prime_a', 'prime_b', 'search']) await register(tool);
    await addCanaryWarning('prime_b', 'Pass one integer as number.');
    await addCanaryWarning('search', 'Quote phrases.');
    await sendEvents(t, [...primeCalls('prime_a'), ...primeCalls('prime_b')]);
    const run = await runNightly(t, D1);
    expect(run.body.status).toBe('succeeded');

    const nightly = await canaryOf('prime_a');
    expect(nightly).toMatchObject({ status: 'running', previousVersion: 1, canaryVersion: 2 });
    const warnings = (await t.request('GET', '/v1/tools/prime_a/warnings')).body.warnings;
    expect(warnings).toEqual([expect.objectContaining({ id: nightly.warningId, source: 'auto' })]);

    const manual = await canaryOf('prime_b');
    expect(await waitingOf('prime_b')).toEqual({ reason: 'canary', canaryId: manual.id, tool: 'prime_b', since: manual.startedAt });
    // an applied or dismissed recommendation waits for nothing
    const applied = (await t.request('GET', '/v1/recommendations?tool=prime_a&status=applied')).body.items;
    expect(applied).toEqual([expect.objectContaining({ warningId: nightly.warningId, waitingFor: null })]);
  });

  it("says what else holds a proposed recommendation: the auto-apply policy's switch, its kinds and its thresholds", async () => {
    await t.request('PUT', '/v1/policy', { body: { autoApply: false } });
    expect(await waitingOf('prime_b')).toEqual({ reason: 'auto_apply_off' });
    await t.request('PUT', '/v1/policy', { body: { autoApply: true, minOccurrences: 1000 } });
    expect(await waitingOf('prime_b')).toEqual({ reason: 'below_thresholds', count: 10, minOccurrences: 1000, share: 1, minShare: 0.05 });
    await t.request('PUT', '/v1/policy', { body: { minOccurrences: 5, autoApplyKinds: ['learned_limit'] } });
    expect(await waitingOf('prime_b')).toEqual({ reason: 'kind_not_auto_applied', kind: 'wrong_argument_name' });
    const restored = await t.request('PUT', '/v1/policy', { body: { autoApplyKinds: ['wrong_argument_name'] } });
    expect(restored.body).toMatchObject({ autoApply: true, minOccurrences: 5, autoApplyKinds: ['wrong_argument_name'] });
  });

  it("lists a running canary's live calls and failed calls per side, counted from the day before it started", async () => {
    const canary = await canaryOf('search');
    expect(canary).toMatchObject({ status: 'running', previousVersion: 1, canaryVersion: 2 });
    const now = Date.now();
    const call = (version: number, isError: boolean, i: number) => ({
      id: randomUUID(),
      tool: 'search',
      occurredAt: new Date(now - 60_000 + i).toISOString(),
      descriptionVersion: version,
      arguments: { query: 'red shoes' },
      ...(isError ? { status: 'error', error: { type: 'Error', message: 'upstream timed out' } } : { status: 'success', result: [] }),
    });
    // version 2: 7 calls, 1 failed; version 1: 5 calls, 3 failed; two days before the canary started do not count (the
    // day before, its baseline, would)
    const events = [
      ...Array.from({ length: 7 }, (_, i) => call(2, i === 0, i)),
      ...Array.from({ length: 5 }, (_, i) => call(1, i < 3, 10 + i)),
      { ...call(1, true, 20), occurredAt: new Date(Date.parse(canary.startedAt) - 2 * 86_400_000).toISOString() },
    ];
    await sendEvents(t, events);
    const sides = await eventually(async () => {
      const listed = await canaryOf('search');
      return listed.sides?.canary.calls === 7 && listed.sides?.previous.calls === 5 ? listed.sides : undefined;
    });
    expect(sides).toEqual({
      counted: 'errors',
      canary: { version: 2, calls: 7, mistakes: 1 },
      previous: { version: 1, calls: 5, mistakes: 3 },
    });
  });

  it('stops a canary by hand: rolled back with a decision by the API, its warning dismissed, the previous text served to all', async () => {
    const canary = await canaryOf('prime_b');
    const stopped = await t.request('POST', `/v1/rollout/canaries/${canary.id}/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({
      id: canary.id,
      status: 'rolled_back',
      sides: null,
      decision: { action: 'roll_back', reason: 'stopped by hand', by: 'api', counted: 'errors', decidedFor: null },
    });
    expect(stopped.body.decidedAt).not.toBeNull();
    for (const sticky of everyone) {
      const description = await served('prime_b', sticky);
      expect(description.version).toBe(3);
      expect(description.description).not.toContain('Pass one integer as number.');
    }
    const warnings = (await t.request('GET', '/v1/tools/prime_b/warnings')).body.warnings;
    expect(warnings).toEqual([expect.objectContaining({ id: canary.warningId, status: 'dismissed', dismissedReason: 'rolled_back' })]);
    // nothing holds its recommendation any more but the next nightly run
    expect(await waitingOf('prime_b')).toEqual({ reason: 'nightly' });

    for (const action of ['stop', 'promote']) {
      const again = await t.request('POST', `/v1/rollout/canaries/${canary.id}/${action}`);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('canary_not_running');
      expect(again.body.error.message).toContain('rolled_back');
    }
  });

  it("switching the rollout policy off promotes the nightly's running canaries and says which; a person's canary runs on", async () => {
    const nightly = await canaryOf('prime_a');
    const manual = await canaryOf('search');
    const off = await t.request('PUT', '/v1/rollout/policy', { body: { enabled: false } });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({
      enabled: false,
      share: 0.2,
      minCalls: 100,
      design: 'alternating',
      endedCanaries: [{ id: nightly.id, tool: 'prime_a', status: 'promoted' }],
    });
    expect(await canaryOf('prime_a')).toMatchObject({
      status: 'promoted',
      sides: null,
      decision: { action: 'promote', reason: 'rollout policy switched off', by: 'api', decidedFor: null },
    });
    for (const sticky of everyone) expect((await served('prime_a', sticky)).version).toBe(2);
    expect(await canaryOf('search')).toMatchObject({ id: manual.id, status: 'running' });
    // already off: nothing left to end
    expect((await t.request('PUT', '/v1/rollout/policy', { body: { enabled: false } })).body.endedCanaries).toEqual([]);
  });

  it('promotes a canary by hand: its version is served to everyone; unknown and foreign ids are 404, a missing key 401', async () => {
    const canary = await canaryOf('search');
    const other = await t.createProject(`steer-other-${randomUUID().slice(0, 8)}`);
    for (const id of [randomUUID(), 'not-a-uuid']) {
      const unknown = await t.request('POST', `/v1/rollout/canaries/${id}/promote`);
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.code).toBe('not_found');
    }
    expect((await t.request('POST', `/v1/rollout/canaries/${canary.id}/stop`, { key: other.apiKey })).status).toBe(404);
    expect((await t.request('POST', `/v1/rollout/canaries/${canary.id}/promote`, { key: null })).status).toBe(401);
    expect((await canaryOf('search')).status).toBe('running');

    const promoted = await t.request('POST', `/v1/rollout/canaries/${canary.id}/promote`);
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({
      id: canary.id,
      status: 'promoted',
      decision: {
        action: 'promote',
        reason: 'promoted by hand',
        by: 'api',
        counted: 'errors',
        canary: { version: 2, calls: 7, mistakes: 1 },
        previous: { version: 1, calls: 5, mistakes: 3 },
      },
    });
    for (const sticky of everyone) expect((await served('search', sticky)).description).toContain('Quote phrases.');
    expect((await t.request('POST', `/v1/rollout/canaries/${canary.id}/promote`)).status).toBe(409);
  });
});
