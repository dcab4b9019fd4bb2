import { randomUUID } from 'node:crypto';
import { runNightly } from '../support/job-runs';
import { sendEvents } from '../support/send-events';
import { startTestApp, TestApp } from '../support/test-app';

const D1 = '2026-03-01';
const D2 = '2026-03-02';
const TOOLS = ['prime_factorization', 'factorial', 'get_weather'];
// the wording LangChain's tool-calling agents and LangGraph's ToolNode answer a call to a name they do not have
const notAValidTool = (name: string) => `Error: ${name} is not a valid tool, try one of [${TOOLS.join(', ')}].`;

/**
 * Calls to a misspelled tool close the loop: 30 calls to `prime_factorise` -> one nightly -> a warning on
 * `prime_factorization` served in its description (a canary, to every caller, on the default policy) -> sessions that
 * loaded it stop misspelling -> the next nightly promotes it and measures it `helped`.
 * A name like no registered tool becomes a project note on GET /v1/tools, never a recommendation.
 */
describe('unknown tools close the loop', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const at = (day: string, second: number) => new Date(Date.parse(`${day}T08:00:00Z`) + second * 1000).toISOString();
  const success = (day: string, second: number, sessionId: string, tool: string, version: number) => ({
    id: randomUUID(),
    tool,
    status: 'success',
    arguments: { number: 12 },
    result: [2, 2, 3],
    durationMs: 1,
    occurredAt: at(day, second),
    sessionId,
    descriptionVersion: version,
  });
  // a call that never reached a tool: the SDKs know no description version for a name that is not registered
  const wrongName = (day: string, second: number, sessionId: string, name: string, version?: number) => ({
    id: randomUUID(),
    tool: name,
    status: 'error',
    arguments: { number: 12 },
    occurredAt: at(day, second),
    sessionId,
    ...(version === undefined ? {} : { descriptionVersion: version }),
    error: { type: 'ToolException', message: notAValidTool(name) },
  });

  it('registers the tools', async () => {
    for (const name of TOOLS) {
      const registered = await t.request('PUT', `/v1/tools/${name}`, {
        // well described (issue 23's checker finds nothing), so the only recommendation is the misnamed tool's
        body: {
          description: `The ${name.replace(/_/g, ' ')} tool: pass one integer, e.g. {"number": 12}.`,
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

  it('turns 30 calls to a misspelled name into an applied warning on the tool the model meant, after one nightly', async () => {
    const events = [];
    for (let s = 0; s < 30; s++) {
      const session = `phase1-${s}`;
      // half report the version they were given, half only through their session's call to the right tool
      events.push(wrongName(D1, s * 10, session, 'prime_factorise', s % 2 === 0 ? 1 : undefined));
      events.push(success(D1, s * 10 + 2, session, 'prime_factorization', 1));
    }
    for (let s = 0; s < 10; s++) events.push(success(D1, 400 + s, `phase1-ok-${s}`, 'prime_factorization', 1));
    for (let s = 0; s < 8; s++) events.push(wrongName(D1, 500 + s, `phase1-mail-${s}`, 'send_email'));
    await sendEvents(t, events);

    const run = await runNightly(t, D1);
    expect(run.body).toMatchObject({ status: 'succeeded' });

    const { body } = await t.request('GET', '/v1/recommendations?limit=200');
    expect(body.items.map((r: { tool: string; kind: string }) => `${r.kind}:${r.tool}`)).toEqual(['misnamed_tool:prime_factorization']);
    const [recommendation] = body.items;
    expect(recommendation).toMatchObject({
      status: 'applied',
      text: 'This tool is `prime_factorization`; there is no `prime_factorise`.',
      evidence: { count: 30, calledTool: 'prime_factorise', intendedTool: 'prime_factorization' },
    });

    const description = (await t.request('GET', '/v1/tools/prime_factorization/description')).body;
    expect(description.version).toBe(2);
    const [canary] = (await t.request('GET', '/v1/rollout/canaries?tool=prime_factorization')).body.items;
    expect(canary).toMatchObject({ status: 'running', design: 'alternating', previousVersion: 1, canaryVersion: 2 });
    // 30 misspelled calls of the 70 made to either name since the mistake was first seen
    expect(description.description).toContain(
      '- This tool is `prime_factorization`; there is no `prime_factorise`. 30 of 70 recent calls failed this way.',
    );
  });

  it('lists a name like no registered tool as a project note beside the tools, and recommends nothing for it', async () => {
    const list = await t.request('GET', '/v1/tools?format=openai');
    expect(list.status).toBe(200);
    expect(list.body.tools.map((tool: { function: { name: string } }) => tool.function.name).sort()).toEqual([...TOOLS].sort());
    expect(list.body.notes).toEqual([
      {
        kind: 'unknown_tool',
        subject: 'send_email',
        text: '8 calls to `send_email`, which is not a registered tool and is like none of them: register it if the agent should have it, or stop offering it to the model.',
        evidence: expect.objectContaining({ count: 8, exampleEventIds: expect.any(Array) }),
        updatedAt: expect.any(String),
      },
    ]);
    const { rows } = await t.db.sql.query(`SELECT tool, kind FROM recommendations WHERE tool IN ('send_email', 'prime_factorise')`);
    expect(rows).toEqual([]);
  });

  it('drops the note once the name is registered, and measures the warning helped when sessions that loaded it stop misspelling', async () => {
    const registered = await t.request('PUT', '/v1/tools/send_email', {
      body: { description: 'Send an email.', parameters: { type: 'object', properties: { to: { type: 'string' } } } },
    });
    expect(registered.status).toBe(201);

    const events = [];
    for (let s = 0; s < 40; s++) events.push(success(D2, s * 10, `phase2-${s}`, 'prime_factorization', 2));
    // one session that loaded v2 still misspells once
    events.push(wrongName(D2, 3, 'phase2-0', 'prime_factorise'));
    await sendEvents(t, events);

    const run = await runNightly(t, D2);
    expect(run.body).toMatchObject({ status: 'succeeded', counts: { effectsMeasured: 1 } });
    // its calls made clearly fewer misspellings: promoted at its first look, so measured the same night
    const [canary] = (await t.request('GET', '/v1/rollout/canaries?tool=prime_factorization')).body.items;
    expect(canary).toMatchObject({ status: 'promoted', decision: { action: 'promote', look: 1 } });
    const [recommendation] = (await t.request('GET', '/v1/recommendations?status=applied')).body.items;
    expect(recommendation.kind).toBe('misnamed_tool');
    expect(recommendation.effect).toMatchObject({
      verdict: 'helped',
      method: 'version',
      // with: 40 calls to the tool at v2 and the 1 misspelled call of a v2 session
      withWarning: { calls: 41, mistakes: 1 },
      // without: 40 calls at v1 and the 30 misspelled calls of v1 sessions (by their own version or their session's)
      withoutWarning: { calls: 70, mistakes: 30 },
    });
    expect(recommendation.effect.withWarning.ci95[1]).toBeLessThan(recommendation.effect.withoutWarning.ci95[0]);
    expect((await t.request('GET', '/v1/tools')).body.notes).toEqual([]);
  });
});
