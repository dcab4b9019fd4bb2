import { randomUUID } from 'node:crypto';
import { beforeAllAwayFromDayChange, runNightly } from '../support/job-runs';
import { sendEvents } from '../support/send-events';
import { startTestApp, TestApp } from '../support/test-app';

// Issue 34, findings 3 and 4, on the default policies (nothing PUT) with one project per scenario: the canary slot goes
// to the warning backed by mistakes, not to a definition finding with none; a definition line that restates an applied
// warning is never added; warnings of one tool about different mistakes share a canary version and each gets its own
// numbers; warnings about overlapping mistakes never share one. Each nightly is for today, as the issue allows.
const today = () => new Date().toISOString().slice(0, 10);
/** The default policy's minCalls: a day this size gives each side enough calls to decide at the first look. */
const CALLS_PER_DAY = 100;
const FAILED = { type: 'ToolException', message: 'Tool execution failed' };

interface Recommendation {
  id: string;
  kind: string;
  status: string;
  text: string;
  warningId: string | null;
  effect: Record<string, unknown> | null;
  waitingFor: Record<string, unknown> | null;
}
interface Canary {
  id: string;
  status: string;
  warningIds: string[];
  previousVersion: number;
  canaryVersion: number;
  decision: { action: string; warnings: Array<{ warningId: string; canary: object; previous: object }> } | null;
}

let t: TestApp;

beforeAllAwayFromDayChange(async () => {
  // every call is stamped at the real time and every nightly is for today: never start in a day's last two minutes
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** A project with one registered tool, and the routes as that project's key. */
async function projectWith(tool: string, definition: { description: string; parameters: Record<string, unknown> }) {
  const project = await t.createProject(`priority-${tool}`);
  const request: TestApp['request'] = (method, path, options = {}) => t.request(method, path, { ...options, key: project.apiKey });
  expect((await request('PUT', `/v1/tools/${tool}`, { body: definition })).status).toBe(201);
  return {
    /** One day of calls at `version`, stamped now; `mistakeOf(i)` gives call i's mistake fields, or null for a success. */
    sendDay: async (version: number, mistakeOf: (i: number) => Record<string, unknown> | null, success: Record<string, unknown>) => {
      const now = Date.now();
      const events = Array.from({ length: CALLS_PER_DAY }, (_, i) => {
        const base = { id: randomUUID(), tool, occurredAt: new Date(now - 60_000 + i).toISOString(), descriptionVersion: version };
        const mistake = mistakeOf(i);
        return mistake ? { ...base, status: 'error', ...mistake } : { ...base, status: 'success', arguments: success, result: 1 };
      });
      await sendEvents({ request, db: t.db, projectId: project.projectId }, events);
    },
    nightly: async () => {
      const run = await runNightly({ request }, today());
      expect(run.body).toMatchObject({ status: 'succeeded' });
      return run.body.counts as Record<string, number>;
    },
    recommendations: async (): Promise<Recommendation[]> => (await request('GET', `/v1/recommendations?tool=${tool}&limit=200`)).body.items,
    canaries: async (): Promise<Canary[]> => (await request('GET', `/v1/rollout/canaries?tool=${tool}`)).body.items,
    served: async (): Promise<string> => (await request('GET', `/v1/tools/${tool}/description`)).body.description,
  };
}

const byKind = (recommendations: Recommendation[], kind: string) => recommendations.filter((r) => r.kind === kind);

it("gives a tool's first canary to the warning backed by 20 malformed-JSON mistakes, and never adds the example line that restates it", async () => {
  // gcd's definition lacks an example call (a schema_quality addition with 0 occurrences: finding 3's gcd)
  const p = await projectWith('gcd', {
    description: 'Greatest common divisor of two integers.',
    parameters: {
      type: 'object',
      properties: { a: { type: 'integer', description: 'The first integer.' }, b: { type: 'integer', description: 'The second integer.' } },
      required: ['a', 'b'],
      additionalProperties: false,
    },
  });
  const malformed = { arguments: '{"a": 12, "b": 18', error: { type: 'SyntaxError', message: 'Unexpected end of JSON input' } };
  await p.sendDay(1, (i) => (i % 5 === 0 ? malformed : null), { a: 12, b: 18 });

  expect(await p.nightly()).toMatchObject({ applied: 1 });
  const [learned] = byKind(await p.recommendations(), 'malformed_arguments');
  const [example] = byKind(await p.recommendations(), 'schema_quality');
  expect(learned).toMatchObject({ status: 'applied' });
  expect(example).toMatchObject({ status: 'proposed', text: 'Example call: {"a":12,"b":12}' });
  const [first] = await p.canaries();
  expect(first).toMatchObject({ status: 'running', canaryVersion: 2, warningIds: [learned.warningId] });
  expect(await p.served()).toContain(learned.text);
  expect(await p.served()).not.toContain('Example call');

  // the canary is promoted; the example line targets the same mistakes (any malformed or wrong argument), so it is
  // not added, though no canary of gcd runs any more
  await p.sendDay(2, () => null, { a: 12, b: 18 });
  expect(await p.nightly()).toMatchObject({ canariesPromoted: 1, applied: 0 });
  expect(await p.canaries()).toEqual([expect.objectContaining({ id: first.id, status: 'promoted' })]);
  // and the API says why, not that the next nightly applies it
  expect(byKind(await p.recommendations(), 'schema_quality')).toEqual([
    expect.objectContaining({
      id: example.id,
      status: 'proposed',
      waitingFor: { reason: 'restates_applied', recommendationId: learned.id },
    }),
  ]);
  expect(await p.served()).toContain(learned.text);
  expect(await p.served()).not.toContain('Example call');
}, 60_000);

it('tests two warnings about different mistakes in one canary version and credits each with its own numbers', async () => {
  const p = await projectWith('prime_factorization', {
    description: 'Factor one integer into its primes, e.g. {"number": 12}.',
    parameters: {
      type: 'object',
      properties: { number: { type: 'integer', minimum: 1, maximum: 1_000_000, description: 'The integer to factor.' } },
      required: ['number'],
      additionalProperties: false,
    },
  });
  const wrongName = { arguments: { numbers: [12, 15] }, error: FAILED };
  const wrongType = { arguments: { number: 'twelve' }, error: FAILED };
  // day 1: 30 calls pass 'numbers', 20 pass 'number' as a string; day 2 (the canary): no 'numbers', 2 strings
  await p.sendDay(1, (i) => (i < 30 ? wrongName : i < 50 ? wrongType : null), { number: 12 });

  expect(await p.nightly()).toMatchObject({ applied: 2 });
  const [name] = byKind(await p.recommendations(), 'wrong_argument_name');
  const [type] = byKind(await p.recommendations(), 'type_mismatch');
  const [canary] = await p.canaries();
  // one version holds both (each warning joined makes a version; the canary serves the last)
  expect(canary).toMatchObject({ status: 'running', previousVersion: 1 });
  const version = canary.canaryVersion;
  expect([...canary.warningIds].sort()).toEqual([name.warningId, type.warningId].sort());
  const served = await p.served();
  expect(served).toContain(name.text);
  expect(served).toContain(type.text);

  await p.sendDay(version, (i) => (i < 2 ? wrongType : null), { number: 12 });
  expect(await p.nightly()).toMatchObject({ canariesPromoted: 1 });
  const [decided] = await p.canaries();
  expect(decided).toMatchObject({ id: canary.id, status: 'promoted' });
  expect(decided.decision!.warnings).toHaveLength(2);
  expect(decided.decision!.warnings).toEqual(
    expect.arrayContaining([
      expect.objectContaining({
        warningId: name.warningId,
        canary: { version, calls: 100, mistakes: 0 },
        previous: { version: 1, calls: 100, mistakes: 30 },
      }),
      expect.objectContaining({
        warningId: type.warningId,
        canary: { version, calls: 100, mistakes: 2 },
        previous: { version: 1, calls: 100, mistakes: 20 },
      }),
    ]),
  );
  // each recommendation's measured effect counts its own mistake only
  const after = await p.recommendations();
  expect(after.find((r) => r.id === name.id)).toMatchObject({
    status: 'applied',
    effect: { verdict: 'helped', withWarning: { calls: 100, mistakes: 0 }, withoutWarning: { calls: 100, mistakes: 30 } },
  });
  expect(after.find((r) => r.id === type.id)).toMatchObject({
    status: 'applied',
    effect: { verdict: 'helped', withWarning: { calls: 100, mistakes: 2 }, withoutWarning: { calls: 100, mistakes: 20 } },
  });
  // and each says how it was tested: which canary, its design, and the warning tested beside it
  expect(after.find((r) => r.id === name.id)!.effect).toMatchObject({
    testedBy: { design: 'alternating', canaryId: expect.any(String), testedWith: [type.warningId] },
  });
  expect(after.find((r) => r.id === type.id)!.effect).toMatchObject({
    testedBy: { design: 'alternating', testedWith: [name.warningId] },
  });
}, 60_000);

it('never tests two warnings about overlapping mistakes in one canary: the second waits for the next nightly', async () => {
  // two definition findings of is_prime (one integer a call; no example) both target any wrong argument of the tool
  const p = await projectWith('is_prime', {
    description: 'Check whether a number is prime.',
    parameters: {
      type: 'object',
      properties: { number: { type: 'integer', minimum: 1, maximum: 1_000_000, description: 'The integer to check.' } },
      required: ['number'],
      additionalProperties: false,
    },
  });
  await p.sendDay(1, () => null, { number: 7 });

  expect(await p.nightly()).toMatchObject({ applied: 1 });
  const findings = byKind(await p.recommendations(), 'schema_quality');
  expect(findings.map((r) => r.status).sort()).toEqual(['applied', 'proposed']);
  const first = findings.find((r) => r.status === 'applied')!;
  const second = findings.find((r) => r.status === 'proposed')!;
  const [firstCanary] = await p.canaries();
  expect(firstCanary).toMatchObject({ status: 'running', warningIds: [first.warningId] });
  expect(await p.served()).not.toContain(second.text);

  // the first is promoted on a day of calls; only then does the second start, in a canary of its own
  await p.sendDay(2, () => null, { number: 7 });
  expect(await p.nightly()).toMatchObject({ canariesPromoted: 1, applied: 1 });
  const started = (await p.recommendations()).find((r) => r.id === second.id)!;
  expect(started).toMatchObject({ status: 'applied' });
  const canaries = await p.canaries();
  expect(canaries).toHaveLength(2);
  expect(canaries).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ id: firstCanary.id, status: 'promoted' }),
      expect.objectContaining({ status: 'running', warningIds: [started.warningId] }),
    ]),
  );
  // (not asserted: the first, promoted on 0/100 against 0/100, is retired the same night by autoRetire as no_effect)
  expect(await p.served()).toContain(second.text);
}, 60_000);
