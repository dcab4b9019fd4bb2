import { randomUUID } from 'node:crypto';
import { beforeAllAwayFromDayChange, runNightly } from '../support/job-runs';
import { sendEvents } from '../support/send-events';
import { startTestApp, TestApp } from '../support/test-app';

// Issue 34, "no regressions of the loop by kind": every recommendation kind the default policy auto-applies goes from
// its mistakes to a warning served to every caller, on the default policies (nothing PUT). One project per kind, so a
// kind's warnings never meet another's. Each nightly is for today, twice in a row, as the issue allows: the first
// starts the warning as an alternating canary (served to everyone until the next look), the second judges it on a day
// of calls reporting the canary version without the mistake, and promotes it.
const today = () => new Date().toISOString().slice(0, 10);
/** Calls a day: the policy's default `minCalls` (100), so even a canary without mistakes on its baseline decides. */
const CALLS_PER_DAY = 100;
/** Every fifth call of the first day makes the kind's mistake: 20 mistakes, all of the tool's errors. */
const MISTAKE_EVERY = 5;

type Arguments = Record<string, unknown> | string;

interface KindCase {
  kind: string;
  tool: string;
  description: string;
  parameters: Record<string, unknown>;
  /** The mistake's event fields (the tool defaults to the case's). */
  mistake: { arguments: Arguments; error: { type: string; message: string }; tool?: string };
  /** A call that works; `i` varies the value where the kind learns from the successes (a learned limit). */
  success: (i: number) => Arguments;
  /** The warning's text as the rules render it. */
  text: string;
}

const PRIME = {
  description: 'Factor one integer into its primes, e.g. {"number": 12}.',
  parameters: {
    type: 'object',
    properties: { number: { type: 'integer', minimum: 1, maximum: 1_000_000, description: 'The integer to factor.' } },
    required: ['number'],
    additionalProperties: false,
  },
};
const FAILED = { type: 'ToolException', message: 'Tool execution failed' };
const factorial = (maximum?: number) => ({
  description: 'Compute the factorial of one integer, e.g. {"n": 5}.',
  parameters: {
    type: 'object',
    properties: { n: { type: 'integer', minimum: 0, ...(maximum === undefined ? {} : { maximum }), description: 'The integer.' } },
    required: ['n'],
    additionalProperties: false,
  },
});

// Definitions the quality checker finds nothing in (but gcd's, which is the schema_quality case), so the only warning of
// each project is its kind's.
const CASES: KindCase[] = [
  {
    kind: 'wrong_argument_name',
    tool: 'prime_factorization',
    ...PRIME,
    mistake: { arguments: { numbers: [12, 15] }, error: FAILED },
    success: () => ({ number: 12 }),
    text: "Do not pass 'numbers'. The parameter is 'number' (one integer); call this tool once per number.",
  },
  {
    kind: 'missing_argument',
    tool: 'prime_factorization',
    ...PRIME,
    mistake: { arguments: {}, error: FAILED },
    success: () => ({ number: 12 }),
    text: "Always pass 'number' (an integer).",
  },
  {
    kind: 'type_mismatch',
    tool: 'prime_factorization',
    ...PRIME,
    mistake: { arguments: { number: 'twelve' }, error: FAILED },
    success: () => ({ number: 12 }),
    text: "'number' must be an integer, not a string.",
  },
  {
    // finding 6: its argument path is '', which once held it for review although its text names no argument
    kind: 'malformed_arguments',
    tool: 'prime_factorization',
    ...PRIME,
    mistake: { arguments: '{"number": 12', error: { type: 'SyntaxError', message: 'Unexpected end of JSON input' } },
    success: () => ({ number: 12 }),
    text: 'Pass the arguments as one valid JSON object matching the parameters.',
  },
  {
    kind: 'enum_values',
    tool: 'get_weather',
    description: 'Look up the weather of one city, e.g. {"city": "Paris", "unit": "c"}.',
    parameters: {
      type: 'object',
      properties: {
        city: { type: 'string', description: 'The city.' },
        unit: { type: 'string', enum: ['c', 'f'], description: 'The unit.' },
      },
      required: ['city'],
      additionalProperties: false,
    },
    mistake: { arguments: { city: 'Paris', unit: 'kelvin' }, error: { type: 'ValidationError', message: 'invalid arguments' } },
    success: () => ({ city: 'Paris', unit: 'c' }),
    text: "'unit' must be one of 'c', 'f'; not 'kelvin'.",
  },
  {
    kind: 'declared_limit',
    tool: 'factorial',
    ...factorial(20),
    mistake: { arguments: { n: 25 }, error: { type: 'ValidationError', message: 'invalid arguments' } },
    success: (i) => ({ n: i % 21 }),
    text: "'n' must be at most 20.",
  },
  {
    kind: 'learned_limit',
    tool: 'factorial',
    ...factorial(),
    mistake: { arguments: { n: 25 }, error: { type: 'OverflowError', message: 'Factorial calculation overflow for n = 25' } },
    success: (i) => ({ n: i % 21 }),
    text: "'n' above 20 fails (overflow).",
  },
  {
    kind: 'misnamed_tool',
    tool: 'prime_factorization',
    ...PRIME,
    // LangChain's answer to a call to a name the agent does not have; the SDK reports the intended tool's version
    mistake: {
      tool: 'prime_factorise',
      arguments: { number: 12 },
      error: { type: 'ToolException', message: 'Error: prime_factorise is not a valid tool, try one of [prime_factorization].' },
    },
    success: () => ({ number: 12 }),
    text: 'This tool is `prime_factorization`; there is no `prime_factorise`.',
  },
  {
    // from the definition (no example call), not from mistakes: four stray arguments stay below minOccurrences, so no
    // learned warning restates it, and give its baseline day the mistakes the addition targets
    kind: 'schema_quality',
    tool: 'gcd',
    description: 'Greatest common divisor of two integers.',
    parameters: {
      type: 'object',
      properties: { a: { type: 'integer', description: 'The first integer.' }, b: { type: 'integer', description: 'The second integer.' } },
      required: ['a', 'b'],
      additionalProperties: false,
    },
    mistake: { arguments: { a: 12, b: 18, c: 6 }, error: FAILED },
    success: () => ({ a: 12, b: 18 }),
    text: 'Example call: {"a":12,"b":12}',
  },
];

interface Recommendation {
  id: string;
  kind: string;
  status: string;
  text: string;
  warningId: string | null;
  evidence: Record<string, unknown>;
  effect: Record<string, unknown> | null;
}

let t: TestApp;

beforeAllAwayFromDayChange(async () => {
  // every call is stamped at the real time and every nightly is for today: never start in a day's last two minutes
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** A project of its own, and the routes and event sending as that project's key. */
async function projectFor(name: string) {
  const project = await t.createProject(name);
  const request: TestApp['request'] = (method, path, options = {}) => t.request(method, path, { ...options, key: project.apiKey });
  return {
    request,
    send: (events: Array<Record<string, unknown>>) => sendEvents({ request, db: t.db, projectId: project.projectId }, events),
    nightly: async () => {
      const run = await runNightly({ request }, today());
      expect(run.body).toMatchObject({ status: 'succeeded' });
      return run.body;
    },
    recommendations: async (tool: string): Promise<Recommendation[]> =>
      (await request('GET', `/v1/recommendations?tool=${tool}&limit=200`)).body.items,
    canaries: async (tool: string) => (await request('GET', `/v1/rollout/canaries?tool=${tool}`)).body.items,
    served: async (tool: string) => (await request('GET', `/v1/tools/${tool}/description`)).body,
  };
}

/** `count` calls of `tool` at `version`, stamped now (in order); `isMistake(i)` says which carry `mistake`'s fields. */
function callsOf(
  tool: string,
  version: number,
  count: number,
  fields: { success: (i: number) => Arguments; mistake?: KindCase['mistake']; isMistake?: (i: number) => boolean },
) {
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => {
    const base = {
      id: randomUUID(),
      tool,
      occurredAt: new Date(now - 60_000 + i).toISOString(),
      descriptionVersion: version,
      durationMs: 1,
    };
    return fields.mistake && fields.isMistake?.(i)
      ? { ...base, status: 'error', ...fields.mistake }
      : { ...base, status: 'success', arguments: fields.success(i), result: 1 };
  });
}

describe.each(CASES)('on the default policies, a $kind warning', (kase) => {
  it('is auto-applied by the nightly as an alternating canary served to everyone, and promoted after a day without the mistake', async () => {
    const p = await projectFor(`kind-${kase.kind}`);
    expect(
      (await p.request('PUT', `/v1/tools/${kase.tool}`, { body: { description: kase.description, parameters: kase.parameters } })).status,
    ).toBe(201);
    // the schema_quality case has only 4 mistakes: its finding comes from the definition
    const isMistake = kase.kind === 'schema_quality' ? (i: number) => i < 4 : (i: number) => i % MISTAKE_EVERY === 0;
    await p.send(callsOf(kase.tool, 1, CALLS_PER_DAY, { success: kase.success, mistake: kase.mistake, isMistake }));

    expect((await p.nightly()).counts).toMatchObject({ applied: 1 });
    const recommendation = (await p.recommendations(kase.tool)).find((r) => r.kind === kase.kind && r.status === 'applied');
    expect(recommendation).toMatchObject({ text: kase.text, warningId: expect.any(String) });
    expect(recommendation!.evidence.requiresReview).toBeUndefined();
    const warnings = (await p.request('GET', `/v1/tools/${kase.tool}/warnings`)).body.warnings;
    expect(warnings).toContainEqual(expect.objectContaining({ id: recommendation!.warningId, status: 'active', text: kase.text }));
    const [canary] = await p.canaries(kase.tool);
    expect(canary).toMatchObject({ status: 'running', design: 'alternating', looks: 0, previousVersion: 1, canaryVersion: 2 });
    expect(canary.warningIds).toEqual([recommendation!.warningId]);
    // no sticky header: the alternating design serves the canary version to everyone until the next look
    expect(await p.served(kase.tool)).toMatchObject({ version: 2, description: expect.stringContaining(kase.text) });

    await p.send(callsOf(kase.tool, 2, CALLS_PER_DAY, { success: kase.success }));
    expect((await p.nightly()).counts).toMatchObject({ canariesPromoted: 1, canariesRolledBack: 0 });
    const [decided] = await p.canaries(kase.tool);
    expect(decided).toMatchObject({ id: canary.id, status: 'promoted', decision: { action: 'promote', look: 1, design: 'alternating' } });
    expect(decided.decision.warnings).toEqual([
      expect.objectContaining({ warningId: recommendation!.warningId, canary: { version: 2, calls: CALLS_PER_DAY, mistakes: 0 } }),
    ]);
    expect((await p.served(kase.tool)).description).toContain(kase.text);
    const after = (await p.recommendations(kase.tool)).find((r) => r.id === recommendation!.id);
    expect(after).toMatchObject({
      status: 'applied',
      effect: expect.objectContaining({ withWarning: expect.objectContaining({ mistakes: 0 }) }),
    });
  }, 60_000);
});
