import { randomUUID } from 'node:crypto';
import { runNightly } from '../support/job-runs';
import { sendEvents } from '../support/send-events';
import { eventually, startTestApp, TestApp } from '../support/test-app';

const TOOLS = ['prime_factorization', 'factorial'];
const MISSPELLED = 'prime_factorise';
const DAY_MS = 86_400_000;

/**
 * A long-lived session (an MCP client's, which re-lists its tools after notifications/tools/list_changed) misspells a
 * tool name at v1, is served the misnamed_tool warning (v2) mid-session, and stops misspelling. Each call to the wrong
 * name counts against the version the session had loaded when it made the call, not the newest it ever loaded.
 * Phases are timed around the real clock, as sessions are: the nightly applies a warning of today as of now. On the
 * default policy the warning is a canary served to every caller until the next nightly, which promotes it and measures it.
 */
describe('calls to a misspelled tool name in a session that loads a new version midway', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const today = () => new Date().toISOString().slice(0, 10);
  const call = (sessionId: string, tool: string, occurredAtMs: number, version?: number) => {
    const isMisspelled = tool === MISSPELLED;
    return {
      id: randomUUID(),
      tool,
      status: isMisspelled ? 'error' : 'success',
      arguments: { number: 12 },
      occurredAt: new Date(occurredAtMs).toISOString(),
      sessionId,
      ...(version === undefined ? {} : { descriptionVersion: version }),
      ...(isMisspelled ? { error: { type: 'McpError', message: `MCP error -32602: Tool ${tool} not found` } } : { result: [2, 2, 3] }),
    };
  };

  it('registers the tools', async () => {
    for (const name of TOOLS) {
      const registered = await t.request('PUT', `/v1/tools/${name}`, {
        // well described (issue 23's checker finds nothing), so the only recommendation is the misnamed tool's
        body: {
          description: `The ${name} tool: pass one integer, e.g. {"number": 12}.`,
          parameters: {
            type: 'object',
            properties: { number: { type: 'integer', minimum: 1, maximum: 1000000, description: 'The integer.' } },
            required: ['number'],
          },
        },
      });
      expect(registered.status).toBe(201);
    }
  });

  it('counts each misspelled call against the version loaded at its time, and measures the warning helped', async () => {
    // Both phases and both nightlies fall on one UTC day: wait out the day's first and last seconds.
    await eventually(async () => (Date.now() % DAY_MS > 2_000 && Date.now() % DAY_MS < DAY_MS - 60_000 ? true : undefined), 70_000, 500);
    const day = today();
    const phase1 = [];
    const start = Date.now() - 1_000;
    let at = start;
    // the long session misspells once before its first call of the intended tool, then after each of them
    phase1.push(call('long', MISSPELLED, (at += 5)));
    for (let task = 0; task < 30; task++) {
      phase1.push(call('long', 'prime_factorization', (at += 5), 1));
      if (task > 0) phase1.push(call('long', MISSPELLED, (at += 5)));
    }
    // a session whose only phase-1 call is misspelled; its next call of the intended tool comes after the warning
    phase1.push(call('late', MISSPELLED, (at += 5)));
    // a session that never calls the intended tool: the version its own misspelled call reported
    phase1.push(call('own', MISSPELLED, (at += 5), 1));
    expect(at).toBeLessThan(Date.now());
    await sendEvents(t, phase1);

    const first = await runNightly(t, day);
    expect(first.body).toMatchObject({ status: 'succeeded', counts: { applied: 1 } });
    const served = (await t.request('GET', '/v1/tools/prime_factorization/description')).body;
    expect(served.version).toBe(2);
    expect(served.description).toContain(`there is no \`${MISSPELLED}\``);
    const canaries = async () => (await t.request('GET', '/v1/rollout/canaries?tool=prime_factorization')).body.items;
    expect(await canaries()).toEqual([expect.objectContaining({ status: 'running', design: 'alternating', canaryVersion: 2 })]);

    // after list_changed the long session re-lists and reports v2; it misspells once more, after a v2 call
    at = Date.now() + 5;
    const phase2 = [];
    for (let task = 0; task < 40; task++) phase2.push(call('long', 'prime_factorization', (at += 1), 2));
    phase2.push(call('long', MISSPELLED, (at += 1)));
    phase2.push(call('late', 'prime_factorization', at + 1, 2));
    await sendEvents(t, phase2);

    const second = await runNightly(t, day);
    expect(second.body).toMatchObject({ status: 'succeeded', counts: { effectsMeasured: 1 } });
    // the canary's calls made clearly fewer mistakes: promoted at its first look, and measured the same night
    expect(await canaries()).toEqual([
      expect.objectContaining({
        status: 'promoted',
        decision: expect.objectContaining({ action: 'promote', look: 1, canary: expect.objectContaining({ calls: 42, mistakes: 1 }) }),
      }),
    ]);
    // a warning measured worse would have been retired (autoRetire): the one recommendation is still applied
    const { items } = (await t.request('GET', '/v1/recommendations')).body;
    expect(items.map((r: { kind: string; status: string }) => `${r.kind}:${r.status}`)).toEqual(['misnamed_tool:applied']);
    const [recommendation] = items;
    expect(recommendation.effect).toMatchObject({
      verdict: 'helped',
      method: 'version',
      // 41 calls at v2 and the one misspelled call the long session made after loading v2
      withWarning: { calls: 42, mistakes: 1 },
      // 30 calls at v1, the long session's 30 misspelled calls before v2 (the first by its next call, made at v1)
      // and the `own` session's; `late`'s next call came after the warning was applied, so it tells nothing
      withoutWarning: { calls: 61, mistakes: 31 },
    });
    const { rows } = await t.db.sql.query(
      'SELECT description_version AS version, calls FROM daily_misnamed_calls WHERE project_id = $1 ORDER BY 1',
      [t.projectId],
    );
    expect(rows).toEqual([
      { version: 0, calls: 1 },
      { version: 1, calls: 31 },
      { version: 2, calls: 1 },
    ]);
  }, 120_000);
});
