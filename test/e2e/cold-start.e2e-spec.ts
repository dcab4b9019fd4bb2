import { randomUUID } from 'node:crypto';
import { runNightly } from '../support/job-runs';
import { sendEvents } from '../support/send-events';
import { startTestApp, TestApp } from '../support/test-app';

// The day the first nightly runs (no event yet), the two days agents call the tool (the canary's two turns), and a day
// with loops.
const D0 = '2026-05-01';
const D1 = '2026-05-02';
const D2 = '2026-05-03';
const D3 = '2026-05-04';
const ONE_PER_CALL = 'Pass a single integer; call this tool once per number.';

// The tool of this project's origin story, registered as it was when agents sent `numbers: [12, 15, 18]`.
const ORIGIN_TOOL = {
  description: 'Perform prime factorization of a number',
  parameters: { type: 'object', properties: { number: { type: 'integer' } } },
};

type Finding = { kind: string; path: string; severity: string; fix: string; addition?: string };
type Recommendation = {
  id: string;
  kind: string;
  evidenceKey: string;
  text: string;
  status: string;
  appliedVersion: number | null;
  warningId: string | null;
  waitingFor: Record<string, unknown> | null;
  evidence: Record<string, unknown>;
  effect: Record<string, unknown> | null;
};

/**
 * Cold start (issue 23): a tool's definition is judged at registration, before any event; the nightly turns the
 * findings into schema_quality recommendations (prose additions applied as warnings, schema changes proposed only),
 * whose effect is measured like a learned warning's. Loops (one failing call repeated in a session) are found too.
 */
describe('cold start: tool quality at registration, before the first mistake', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const at = (day: string, second: number) => new Date(Date.parse(`${day}T09:00:00Z`) + second * 1000).toISOString();
  const recommendations = async (tool: string): Promise<Recommendation[]> =>
    (await t.request('GET', `/v1/recommendations?tool=${tool}&limit=200`)).body.items;
  const byKey = (list: Recommendation[], key: string) => list.find((r) => r.evidenceKey === key);
  const kindsAt = (findings: Finding[]) => findings.map((f) => `${f.kind}@${f.path}`);
  const canariesOf = async (tool: string) => (await t.request('GET', `/v1/rollout/canaries?tool=${tool}`)).body.items;

  it('answers the registration with the findings for the missing bounds, the one-value-per-call rule and the example', async () => {
    const registered = await t.request('PUT', '/v1/tools/prime_factorization', { body: ORIGIN_TOOL });
    expect(registered.status).toBe(201);
    const { quality } = registered.body;
    expect(kindsAt(quality.findings)).toEqual(
      expect.arrayContaining([
        'unbounded_number@/parameters/properties/number',
        'batchable_single_value@/parameters/properties/number',
        'no_usage_example@/description',
      ]),
    );
    const batching = quality.findings.find((f: Finding) => f.kind === 'batchable_single_value');
    expect(batching).toMatchObject({ severity: 'high', addition: ONE_PER_CALL });
    // a schema change is the tool owner's: no prose to add
    expect(quality.findings.find((f: Finding) => f.kind === 'unbounded_number').addition).toBeUndefined();
    expect(quality.score).toBeLessThan(60);
    // the highest severity comes first
    expect(quality.findings[0].severity).toBe('high');
  });

  it('lists the same report on GET /v1/tools beside the tools, which keep the framework shape, worst score first', async () => {
    const good = await t.request('PUT', '/v1/tools/add_numbers', {
      body: {
        description: 'Add two integers and return their sum, e.g. {"a": 2, "b": 3} returns 5. One pair per call.',
        parameters: {
          type: 'object',
          properties: {
            a: { type: 'integer', description: 'The first addend, e.g. 2.' },
            b: { type: 'integer', description: 'The second addend, e.g. 3.' },
          },
          required: ['a', 'b'],
        },
      },
    });
    expect(good.status).toBe(201);
    expect(good.body.quality).toEqual({ score: 100, findings: [] });

    const listed = await t.request('GET', '/v1/tools?format=openai');
    expect(listed.status).toBe(200);
    expect(listed.body.quality.map((q: { tool: string; score: number }) => q.tool)).toEqual(['prime_factorization', 'add_numbers']);
    const [prime] = listed.body.quality;
    const registered = await t.request('PUT', '/v1/tools/prime_factorization', { body: ORIGIN_TOOL });
    expect(registered.body.status).toBe('unchanged');
    expect({ score: prime.score, findings: prime.findings }).toEqual(registered.body.quality);
    // what an agent passes to the model is the framework's tool, nothing more
    expect(Object.keys(listed.body.tools[0]).sort()).toEqual(['function', 'type']);
    expect(Object.keys(listed.body.tools[0].function).sort()).toEqual(['description', 'name', 'parameters']);

    const { rows } = await t.db.sql.query('SELECT count(*)::int AS n FROM events WHERE project_id = $1', [t.projectId]);
    expect(rows[0].n).toBe(0);
  });

  it('turns the findings into schema_quality recommendations at the first nightly: one addition starts a canary, the next waits for it, schema changes are proposed', async () => {
    const run = await runNightly(t, D0);
    expect(run.body).toMatchObject({ status: 'succeeded', date: D0 });
    // the project's default policy: the highest-severity addition starts as a canary served to every caller
    expect(run.body.counts.applied).toBe(1);

    const list = await recommendations('prime_factorization');
    const batching = byKey(list, 'schema_quality:batchable_single_value:/parameters/properties/number')!;
    expect(batching).toMatchObject({ kind: 'schema_quality', status: 'applied', text: ONE_PER_CALL });
    expect(batching.evidence).toMatchObject({ count: 0, finding: { kind: 'batchable_single_value', severity: 'high' } });
    const [canary] = await canariesOf('prime_factorization');
    expect(canary).toMatchObject({ status: 'running', design: 'alternating', previousVersion: 1, canaryVersion: 2 });
    // the example is about the same mistakes (argument mismatches): it waits until the canary is decided
    const example = byKey(list, 'schema_quality:no_usage_example:/description')!;
    expect(example).toMatchObject({ status: 'proposed', text: 'Example call: {"number":12}' });
    expect(example.waitingFor).toMatchObject({ reason: 'canary', canaryId: canary.id });

    const bounds = byKey(list, 'schema_quality:unbounded_number:/parameters/properties/number')!;
    expect(bounds).toMatchObject({ kind: 'schema_quality', status: 'proposed', warningId: null });
    expect(bounds.text).toMatch(/^Declare "minimum" and "maximum" on 'number'/);
    const refused = await t.request('POST', `/v1/recommendations/${bounds.id}/apply`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('not_applicable');

    const served = (await t.request('GET', '/v1/tools/prime_factorization/description')).body;
    expect(served.version).toBe(2);
    expect(served.description).toContain(`- ${ONE_PER_CALL}`);
    expect(served.description).not.toContain('Example call');
    // no occurrence to state: the warning line carries no "N of M recent calls"
    expect(served.description).not.toContain('recent calls failed');
    expect(served.baseDescription).toBe(ORIGIN_TOOL.description);
    // the well-described tool got nothing
    expect(await recommendations('add_numbers')).toEqual([]);

    const again = await runNightly(t, D0);
    expect(again.body.counts.applied).toBe(0);
    expect((await t.request('GET', '/v1/tools/prime_factorization/description')).body.version).toBe(served.version);
  });

  it('decides the canary on its two turns and measures the addition like any warning: calls that saw it batch numbers far less often', async () => {
    const call = (day: string, second: number, version: number, isBatched: boolean) =>
      isBatched
        ? {
            id: randomUUID(),
            tool: 'prime_factorization',
            status: 'error',
            arguments: { numbers: [12, 15, 18] },
            occurredAt: at(day, second),
            descriptionVersion: version,
            error: {
              type: 'ValidationError',
              message:
                "1 validation error for prime_factorization\nnumber\n  Field required [type=missing, input_value={'numbers': [12, 15, 18]}, input_type=dict]",
            },
          }
        : {
            id: randomUUID(),
            tool: 'prime_factorization',
            status: 'success',
            arguments: { number: 12 + second },
            result: [2, 2, 3],
            occurredAt: at(day, second),
            descriptionVersion: version,
          };
    // D1, the canary's turn: every caller is served the addition (v2); 3 of 100 calls batch the numbers
    await sendEvents(
      t,
      Array.from({ length: 100 }, (_, i) => call(D1, i, 2, i % 34 === 0)),
    );
    const stored = await t.db.sql.query(
      `SELECT DISTINCT category, subtype, argument_path FROM events WHERE project_id = $1 AND status = 'error'`,
      [t.projectId],
    );
    // the mistake the warning targets: the invented plural name (measured with array-for-scalar and missing `number`)
    expect(stored.rows).toEqual([{ category: 'argument_mismatch', subtype: 'unknown_argument', argument_path: '/numbers' }]);

    // no call reported v1 from the baseline day (D0, the day before the canary started) on: nothing to compare yet, so
    // the look waits and every caller is served v1 in turn
    expect((await runNightly(t, D1)).body).toMatchObject({ status: 'succeeded', counts: { effectsMeasured: 0 } });
    const [waiting] = await canariesOf('prime_factorization');
    expect(waiting).toMatchObject({ status: 'running', looks: 1, state: { servedUntilNextLook: 'previous' } });
    expect((await t.request('GET', '/v1/tools/prime_factorization/description')).body.version).toBe(1);

    // D2, the previous version's turn: 30 of 100 calls batch the numbers
    await sendEvents(
      t,
      Array.from({ length: 100 }, (_, i) => call(D2, i, 1, i % 10 < 3)),
    );
    const run = await runNightly(t, D2);
    expect(run.body.status).toBe('succeeded');
    expect(run.body.counts.effectsMeasured).toBeGreaterThanOrEqual(1);
    const [decided] = (await canariesOf('prime_factorization')).filter((c: { id: string }) => c.id === waiting.id);
    expect(decided).toMatchObject({
      status: 'promoted',
      decision: { action: 'promote', look: 2, canary: { calls: 100, mistakes: 3 }, previous: { calls: 100, mistakes: 30 } },
    });

    const measured = byKey(
      await recommendations('prime_factorization'),
      'schema_quality:batchable_single_value:/parameters/properties/number',
    )!;
    expect(measured.status).toBe('applied');
    // still the same finding: first seen at the first nightly, not at this one
    expect(measured.evidence.firstSeen).toBe(`${D0}T00:00:00.000Z`);
    // measured the night it was promoted
    expect(measured.effect).toMatchObject({
      verdict: 'helped',
      method: 'version',
      withoutWarning: { calls: 100, mistakes: 30 },
      withWarning: { calls: 100, mistakes: 3 },
    });
    // the same night, the warning learned from the batched calls (evidence first) starts the tool's next canary; the
    // example (every argument mismatch of the tool, whatever name the model invented) restates it, so it waits for it
    const [next] = await canariesOf('prime_factorization');
    expect(next).toMatchObject({ status: 'running', previousVersion: 2, canaryVersion: 3 });
    const after = await recommendations('prime_factorization');
    const learned = after.find((r) => r.warningId === next.warningId)!;
    expect(learned).toMatchObject({ kind: 'wrong_argument_name', status: 'applied' });
    const example = byKey(after, 'schema_quality:no_usage_example:/description')!;
    expect(example).toMatchObject({ status: 'proposed', waitingFor: { reason: 'restates_applied', recommendationId: learned.id } });
    const served = (await t.request('GET', '/v1/tools/prime_factorization/description')).body.description;
    expect(served).toContain(`- ${ONE_PER_CALL}`);
    expect(served).not.toContain('Example call');
  });

  it('finds a loop when a session repeats one failing call 6 times, not 5, and recommends a review of the error message', async () => {
    const failing = (tool: string, sessionId: string, second: number, args: Record<string, unknown>) => ({
      id: randomUUID(),
      tool,
      status: 'error',
      arguments: args,
      occurredAt: at(D3, second),
      sessionId,
      error: { type: 'ToolException', message: 'Tool execution failed' },
    });
    const events = [];
    for (let i = 0; i < 6; i++) events.push(failing('prime_factorization', 'session-six', i, { number: -4 }));
    // the same count but different arguments each time: the model is trying, not looping
    for (let i = 0; i < 6; i++) events.push(failing('prime_factorization', 'session-varied', 10 + i, { number: -4 - i }));
    for (let i = 0; i < 5; i++) events.push(failing('add_numbers', 'session-five', 20 + i, { a: 1, b: 'two' }));
    await sendEvents(t, events);

    const run = await runNightly(t, D3);
    expect(run.body.status).toBe('succeeded');

    const loop = byKey(await recommendations('prime_factorization'), 'loop:')!;
    expect(loop).toMatchObject({ kind: 'loop', status: 'proposed', warningId: null });
    expect(loop.text).toContain('The error message of this tool does not tell the model how to fix the call');
    expect(loop.evidence).toMatchObject({
      sessionIds: ['session-six'],
      count: 6,
      loops: [{ sessionId: 'session-six', repeats: 6, errorMessage: 'Tool execution failed' }],
    });
    // five identical failures are not a loop
    expect(byKey(await recommendations('add_numbers'), 'loop:')).toBeUndefined();

    const refused = await t.request('POST', `/v1/recommendations/${loop.id}/apply`);
    expect(refused.status).toBe(409);
    const served = (await t.request('GET', '/v1/tools/prime_factorization/description')).body.description;
    expect(served).not.toContain('error message of this tool');
  });
});
