import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ARGUMENT_VALIDATION_BUDGET_MS, SCHEMA_COMPILE_BUDGET_MS } from '../../src/diagnosis';
import { QueueProducer } from '../../src/infra/queue/queue.producer';
import { anErrorEvent } from '../factories/event.factory';
import { startAppProcess } from '../support/app-process';
import { eventually, startTestApp, TestApp } from '../support/test-app';
import { probeLatencies } from '../support/probe-latencies';
import { expectHealthzResponsive } from '../support/responsiveness';

// Issue 13, findings 1 and 2: a user's schema never decides how long a request or a job runs, nor how much memory
// the process takes. Each hostile schema is registered (refused with its path, or accepted and then cheap to use)
// and also stored directly in the database, as a schema registered before these checks existed would be.

/**
 * Timing noise on this shared 2-core machine. Each validate may take the validation budget, plus the jitter, more than
 * the same request against a schema that checks nothing (sending and parsing a 300 KB body takes its own time).
 */
// how long /healthz and validate are probed at least: at a request every 20 ms, well over ten /healthz samples
const MIN_PROBE_WINDOW_MS = 1500;
const JITTER_MS = 75;
// A Python-style message the categorizer reads on its own: the event keeps this evidence when the schema cannot help.
const UNKNOWN_KEYWORD_MESSAGE = "f() got an unexpected keyword argument 'extra'";

/** Issue 13's probe of finding 2 (1.6 KB): 20 levels, each two references to the next level. */
function fanOut(applicator: 'anyOf' | 'oneOf' | 'allOf'): Record<string, unknown> {
  const $defs: Record<string, unknown> = { l20: { type: 'string' } };
  for (let i = 0; i < 20; i++) $defs[`l${i}`] = { [applicator]: [{ $ref: `#/$defs/l${i + 1}` }, { $ref: `#/$defs/l${i + 1}` }] };
  return { type: 'object', properties: { x: { $ref: '#/$defs/l0' } }, $defs };
}

/** Arrays nested `depth` deep around a string: no branch of the recursion accepts it, so Ajv tries every one. */
function nestedArrays(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

const stringProperty = (pattern: string) => ({ type: 'object', properties: { n: { type: 'string', pattern } } });

const PATTERN_CASES: Array<{ name: string; schema: Record<string, unknown>; args: Record<string, unknown>; path: string }> = [
  {
    name: 'the probe ^\\d*\\d*\\d*\\d*\\d*\\d*\\d*\\d*$ on 64 digits and a !',
    schema: stringProperty('^\\d*\\d*\\d*\\d*\\d*\\d*\\d*\\d*$'),
    args: { n: `${'1'.repeat(64)}!` },
    path: '/n',
  },
  { name: 'the probe ^(a+){1,100}$', schema: stringProperty('^(a+){1,100}$'), args: { n: `${'a'.repeat(64)}!` }, path: '/n' },
  { name: '^(\\d+)*$', schema: stringProperty('^(\\d+)*$'), args: { n: `${'1'.repeat(64)}!` }, path: '/n' },
  { name: '(x|x)*y', schema: stringProperty('(x|x)*y'), args: { n: 'x'.repeat(30_000) }, path: '/n' },
  { name: '^(a|a?)+$', schema: stringProperty('^(a|a?)+$'), args: { n: `${'a'.repeat(64)}!` }, path: '/n' },
  {
    name: 'a patternProperties key ^(a+)+$ against a hostile argument name',
    schema: { type: 'object', patternProperties: { '^(a+)+$': { type: 'integer' } }, additionalProperties: false },
    args: { [`${'a'.repeat(64)}!`]: 1 },
    path: `/${'a'.repeat(64)}!`,
  },
  {
    name: 'a propertyNames pattern ^(\\w+\\s?)*$',
    schema: { type: 'object', propertyNames: { pattern: '^(\\w+\\s?)*$' } },
    args: { [`${'word '.repeat(20)}!`]: 1 },
    path: '',
  },
];

const SCHEMA_CASES: Array<{ name: string; schema: Record<string, unknown>; args: Record<string, unknown>; refusedAt: RegExp | null }> = [
  { name: 'the probe: 20 levels of anyOf over $ref', schema: fanOut('anyOf'), args: { x: 1 }, refusedAt: /^\/parameters\/\$defs\/l\d+/ },
  { name: '20 levels of oneOf over $ref', schema: fanOut('oneOf'), args: { x: 1 }, refusedAt: /^\/parameters\/\$defs\/l\d+/ },
  { name: '20 levels of allOf over $ref', schema: fanOut('allOf'), args: { x: 1 }, refusedAt: /^\/parameters\/\$defs\/l\d+/ },
  {
    name: 'a recursion that doubles the schemas at each level of nested arrays',
    schema: {
      type: 'object',
      properties: { x: { $ref: '#/$defs/tree' } },
      $defs: {
        tree: {
          anyOf: [
            { type: 'integer' },
            { type: 'array', items: { $ref: '#/$defs/tree' } },
            { type: 'array', items: { $ref: '#/$defs/tree' }, minItems: 1 },
          ],
        },
      },
    },
    args: { x: nestedArrays(40) },
    refusedAt: /^\/parameters\/\$defs\/tree/,
  },
  {
    name: 'a $ref that refers to itself without descending',
    schema: {
      type: 'object',
      properties: { x: { $ref: '#/$defs/loop' } },
      $defs: { loop: { anyOf: [{ $ref: '#/$defs/loop' }, { type: 'string' }] } },
    },
    args: { x: 1 },
    refusedAt: /^\/parameters\/\$defs\/loop\/anyOf\/0\/\$ref$/,
  },
  {
    name: 'uniqueItems on a 300 KB array of numbers',
    schema: { type: 'object', properties: { list: { type: 'array', uniqueItems: true } } },
    args: { list: Array.from({ length: 45_000 }, (_, i) => i * 7919) },
    refusedAt: null,
  },
  {
    name: 'uniqueItems on a large array of objects',
    schema: { type: 'object', properties: { rows: { type: 'array', uniqueItems: true, items: { type: 'object' } } } },
    args: { rows: Array.from({ length: 12_000 }, (_, i) => ({ id: i, tags: ['a', 'b'] })) },
    refusedAt: null,
  },
];

describe('hostile schemas (issue 13, findings 1 and 2)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_REQUESTS: '0' });
  });
  afterAll(() => t.close());

  const register = (name: string, parameters: unknown) =>
    t.request('PUT', `/v1/tools/${name}`, { body: { description: 'A hostile tool.', parameters } });

  /** As a schema registered before these checks: registered harmless, then replaced in the database. */
  const storeUnchecked = (name: string, parameters: Record<string, unknown>) => storeBypassingChecks(t, name, parameters);

  const validate = async (name: string, args: unknown) => {
    const startedAt = performance.now();
    const response = await t.request('POST', `/v1/tools/${name}/validate`, { body: { arguments: args } });
    return { status: response.status, body: response.body, ms: performance.now() - startedAt };
  };

  /**
   * The bound for validating `args`: the budget on top of what the same request costs against a schema that checks
   * nothing (a 300 KB body takes tens of ms to send and parse, whatever the schema), the median of three: the fastest
   * of three is what a single request costs when nothing else runs, and this process also runs Jest.
   */
  const validateBoundMs = async (args: unknown) => {
    if ((await t.request('GET', '/v1/tools/baseline/description')).status === 404) {
      expect((await register('baseline', { type: 'object' })).status).toBe(201);
    }
    const plainMs: number[] = [];
    for (let i = 0; i < 3; i++) plainMs.push((await validate('baseline', args)).ms);
    return plainMs.sort((a, b) => a - b)[1] + ARGUMENT_VALIDATION_BUDGET_MS + JITTER_MS;
  };

  const storedErrorEvent = async (tool: string, args: unknown, message: string) => {
    const id = `evt-${randomUUID()}`;
    const accepted = await t.request('POST', '/v1/events', { body: { events: [anErrorEvent(message, { id, tool, arguments: args })] } });
    expect(accepted.status).toBe(202);
    return t.storedEvent(id);
  };

  /** Validate answers `args` within the budget (on top of what the request costs anyway); the answer. */
  const answeredWithinBudget = async (name: string, args: unknown) => {
    const boundMs = await validateBoundMs(args);
    // the first request compiles the schema: a budget of its own, spent once per version
    expect((await validate(name, {})).ms).toBeLessThan(2 * SCHEMA_COMPILE_BUDGET_MS + JITTER_MS);
    const answered = await validate(name, args);
    expect(answered.status).toBe(200);
    expect(answered.ms).toBeLessThan(boundMs);
    return answered.body;
  };

  describe('user patterns run in linear time (finding 1)', () => {
    describe.each(PATTERN_CASES.map((hostile, index) => ({ ...hostile, tool: `pattern_${index}` })))(
      '$name',
      ({ tool, schema, args, path }) => {
        // Linear is not free: a pattern with nested repetition can still spend the budget building its automaton.
        const expectPatternAnswer = (body: { checked: boolean }) =>
          expect(body).toEqual(
            body.checked
              ? expect.objectContaining({ valid: false, errors: [expect.objectContaining({ path, subtype: expect.any(String) })] })
              : expect.objectContaining({ valid: true, reason: expect.stringMatching(/^schema too expensive/) }),
          );

        it('is accepted; validate answers hostile input within the budget and the worker stores the event', async () => {
          expect((await register(tool, schema)).status).toBe(201);
          expectPatternAnswer(await answeredWithinBudget(tool, args));
          const event = await storedErrorEvent(tool, args, 'invalid input');
          expect(event.evidence).toMatch(/^(schema|schema_too_expensive)$/);
          if (event.evidence === 'schema') expect(event.category).toMatch(/^(out_of_range|argument_mismatch)$/);
        });

        it('stored before this change: validate and the worker treat it the same', async () => {
          await storeUnchecked(`${tool}_stored`, schema);
          expectPatternAnswer(await answeredWithinBudget(`${tool}_stored`, args));
          expect((await storedErrorEvent(`${tool}_stored`, args, 'invalid input')).evidence).toMatch(/^(schema|schema_too_expensive)$/);
        });
      },
    );

    it('refuses a pattern the linear-time engine cannot run, naming where it is', async () => {
      const response = await register('pattern_lookbehind', { type: 'object', properties: { n: { type: 'string', pattern: '(?<!x)y' } } });
      expect(response.status).toBe(400);
      expect(response.body.error.details).toEqual([
        { path: '/parameters/properties/n/pattern', message: expect.stringContaining('lookahead or lookbehind') },
      ]);
    });
  });

  describe('validation of user schemas is bounded (finding 2)', () => {
    describe.each(SCHEMA_CASES.map((hostile, index) => ({ ...hostile, tool: `schema_${index}` })))(
      '$name',
      ({ tool, schema, args, refusedAt }) => {
        const expectTooExpensiveWithinBudget = async (name: string) => {
          expect(await answeredWithinBudget(name, args)).toEqual({
            valid: true,
            errors: [],
            suggestion: null,
            checked: false,
            reason: expect.stringMatching(/^schema too expensive/),
          });
          // the schema is now known to be too expensive: the next requests do not pay the budget again
          const again = await validate(name, args);
          expect(again.body.checked).toBe(false);
          expect(again.ms).toBeLessThan(await validateBoundMs(args));
        };

        it('is refused at registration naming the path, or validate answers within the budget', async () => {
          const registered = await register(tool, schema);
          if (refusedAt) {
            expect(registered.status).toBe(400);
            expect(registered.body.error.details[0]).toEqual({ path: expect.stringMatching(refusedAt), message: expect.any(String) });
            return;
          }
          expect(registered.status).toBe(201);
          await expectTooExpensiveWithinBudget(tool);
        });

        it('stored before this change: validate answers within the budget, saying so, and the worker stores the event with the message evidence', async () => {
          await storeUnchecked(`${tool}_stored`, schema);
          await expectTooExpensiveWithinBudget(`${tool}_stored`);
          const event = await storedErrorEvent(`${tool}_stored`, { ...args, extra: 1 }, UNKNOWN_KEYWORD_MESSAGE);
          expect(event).toMatchObject({
            evidence: 'schema_too_expensive',
            category: 'argument_mismatch',
            subtype: 'unknown_argument',
            wrongArgument: 'extra',
          });
        });
      },
    );
  });
});

describe('a process with hostile schemas stored before this change', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Provides the database, the project, the stored schemas and the ingest API; the process under test is the built
    // app (api and worker), which only validates, answers /healthz and categorizes, so its numbers are its own.
    t = await startTestApp({ ROLES: 'api', RATE_LIMIT_REQUESTS: '0' });
  });
  afterAll(() => t.close());

  it('answers /healthz in < 100 ms, every validate within the budget, and stays under 600 MB while validate and the worker chew on hostile input', async () => {
    await storeBypassingChecks(t, 'fanout', fanOut('anyOf'));
    await storeBypassingChecks(t, 'digits', stringProperty('^\\d*\\d*\\d*\\d*\\d*\\d*\\d*\\d*$'));
    await storeBypassingChecks(t, 'unique', { type: 'object', properties: { list: { type: 'array', uniqueItems: true } } });
    await storeBypassingChecks(t, 'baseline', { type: 'object' });
    const hostileArgs: Record<string, Record<string, unknown>> = {
      fanout: { x: 1 },
      digits: { n: `${'1'.repeat(64)}!` },
      unique: { list: Array.from({ length: 5_000 }, (_, i) => i * 7919) },
    };

    // Queued (on a paused queue) before the measurement, so that this process takes no CPU from the app meanwhile:
    // 5,000 hostile events in batches of 100, and three 300 KB uniqueItems arguments.
    const queue = t.app.get(QueueProducer).events;
    await queue.pause();
    for (let b = 0; b < 50; b++) {
      const batch = Array.from({ length: 100 }, (_, i) =>
        anErrorEvent(UNKNOWN_KEYWORD_MESSAGE, {
          id: `evt-${randomUUID()}`,
          tool: i % 2 ? 'fanout' : 'digits',
          arguments: { ...(i % 2 ? hostileArgs.fanout : hostileArgs.digits), extra: 1 },
        }),
      );
      expect((await t.request('POST', '/v1/events', { body: { events: batch } })).status).toBe(202);
    }
    const list = Array.from({ length: 45_000 }, (_, i) => i * 7919);
    for (let i = 0; i < 3; i++) {
      const event = anErrorEvent(UNKNOWN_KEYWORD_MESSAGE, { id: `evt-${randomUUID()}`, tool: 'unique', arguments: { list, extra: 1 } });
      expect((await t.request('POST', '/v1/events', { body: { events: [event] } })).status).toBe(202);
    }

    const { app, url } = await startAppProcess(t);
    const headers = { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' };
    const validateLoop = (name: string, tool: string, args: unknown) => ({
      name,
      method: 'POST',
      path: `/v1/tools/${tool}/validate`,
      body: JSON.stringify({ arguments: args }),
      intervalMs: 10,
    });
    try {
      // each schema is compiled once per version (a budget of its own); what follows measures the validations
      for (const tool of [...Object.keys(hostileArgs), 'baseline']) {
        expect((await fetch(`${url}/v1/tools/${tool}/validate`, { method: 'POST', headers, body: '{"arguments":{}}' })).status).toBe(200);
      }
      const rssMb: number[] = [];
      const sampleRss = setInterval(() => rssMb.push(residentSetMb(app.child.pid!)), 50);
      const loops = [
        { name: 'healthz', method: 'GET', path: '/healthz', intervalMs: 20 },
        ...Object.entries(hostileArgs).map(([tool, args]) => validateLoop(`validate ${tool}`, tool, args)),
        // what the largest of those requests costs at the same moments against a schema that checks nothing
        validateLoop('validate baseline', 'baseline', hostileArgs.unique),
      ];
      const latencies = await probeLatencies(url, headers, loops, async () => {
        const resumedAt = Date.now();
        await queue.resume();
        await eventually(
          async () => {
            const { rows } = await t.db.sql.query('SELECT count(*)::int AS n FROM events');
            return rows[0].n === 5003 ? true : undefined;
          },
          60_000,
          100,
        );
        // the worker may store the 5,003 events in well under a second (one group of up to 5,000 events); the
        // validate loops go on chewing on the hostile schemas for the rest of a window long enough for /healthz to be
        // sampled more than a few times
        const rest = MIN_PROBE_WINDOW_MS - (Date.now() - resumedAt);
        if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
      });
      clearInterval(sampleRss);

      const { rows } = await t.db.sql.query(
        'SELECT tool, evidence, count(*)::int AS n FROM events GROUP BY tool, evidence ORDER BY tool, evidence',
      );
      expect(rows).toEqual([
        { tool: 'digits', evidence: 'schema', n: 2500 },
        { tool: 'fanout', evidence: 'schema_too_expensive', n: 2500 },
        { tool: 'unique', evidence: 'schema_too_expensive', n: 3 },
      ]);
      const quantile = (values: number[], q: number) => [...values].sort((x, y) => x - y)[Math.round(q * (values.length - 1))].toFixed(1);
      const healthzMs = latencies.healthz.map((sample) => sample.ms);
      const validateMs = Object.keys(hostileArgs).flatMap((tool) => latencies[`validate ${tool}`].map((sample) => sample.ms));
      // the HTTP overhead under this load is what the same request costs with a schema that checks nothing
      const validateBoundMs =
        Math.max(...latencies['validate baseline'].map((sample) => sample.ms)) + ARGUMENT_VALIDATION_BUDGET_MS + JITTER_MS;
      console.log(
        `hostile load: /healthz ${healthzMs.length} requests, p50 ${quantile(healthzMs, 0.5)} max ${quantile(healthzMs, 1)} ms; ` +
          `validate ${validateMs.length} requests, p50 ${quantile(validateMs, 0.5)} max ${quantile(validateMs, 1)} ms ` +
          `(bound ${validateBoundMs.toFixed(1)} ms); RSS max ${quantile(rssMb, 1)} MB`,
      );
      expect(
        Object.values(latencies)
          .flat()
          .filter((sample) => sample.status !== 200),
      ).toEqual([]);
      expectHealthzResponsive(healthzMs, 10);
      expect(Math.max(...validateMs)).toBeLessThan(validateBoundMs);
      expect(Math.max(...rssMb)).toBeLessThan(600);
    } finally {
      app.child.kill('SIGTERM');
      await app.exited;
    }
  }, 120_000);
});

async function storeBypassingChecks(t: TestApp, name: string, parameters: Record<string, unknown>): Promise<void> {
  const registered = await t.request('PUT', `/v1/tools/${name}`, {
    body: { description: 'A hostile tool.', parameters: { type: 'object' } },
  });
  expect(registered.status).toBe(201);
  const json = JSON.stringify(parameters);
  await t.db.sql.query('UPDATE tools SET parameters = $1::jsonb WHERE project_id = $2 AND name = $3', [json, t.projectId, name]);
  await t.db.sql.query(
    'UPDATE tool_versions v SET parameters = $1::jsonb FROM tools t WHERE v.tool_id = t.id AND t.project_id = $2 AND t.name = $3',
    [json, t.projectId, name],
  );
}

function residentSetMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return kb ? Number(kb[1]) / 1024 : 0;
}
