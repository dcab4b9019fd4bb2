import {
  ARGUMENT_VALIDATION_BUDGET_MS,
  compileArgumentSchema,
  EXPENSIVE_SCHEMA_COOLDOWN_MS,
  MAX_REPORTED_SCHEMA_ERRORS,
} from './argument-schema';

/** Issue 13's probe: 20 levels of anyOf, each two references to the next level. */
function fanOut(levels: number): Record<string, unknown> {
  const $defs: Record<string, unknown> = { [`l${levels}`]: { type: 'string' } };
  for (let i = 0; i < levels; i++) $defs[`l${i}`] = { anyOf: [{ $ref: `#/$defs/l${i + 1}` }, { $ref: `#/$defs/l${i + 1}` }] };
  return { type: 'object', properties: { x: { $ref: '#/$defs/l0' } }, $defs };
}

/**
 * What these tests tell apart is a run cut off at the budget (25 ms) or skipped from one that ran its course: seconds
 * to hours for the inputs below (issue 13's probe took 10.8 s; 20,000 objects under uniqueItems, 2 million errors,
 * a backtracking pattern far longer). An answer within this bound proves the cut-off without asking a machine busy
 * with other test files (CI runs them in parallel) to answer within a few ms: speed is the benchmarks' to measure.
 */
const CUT_OFF_WITHIN_MS = 1000;

const timed = <T>(run: () => T): { value: T; ms: number } => {
  const startedAt = performance.now();
  const value = run();
  return { value, ms: performance.now() - startedAt };
};

describe('compileArgumentSchema', () => {
  it('never runs the probe of issue 13 (10.8 s and 1.77 GB before): registration would refuse it, so it is too expensive at once', () => {
    const schema = compileArgumentSchema(fanOut(20));
    const { value, ms } = timed(() => schema.validate({ x: 1 }));
    expect(value).toEqual({ status: 'too_expensive' });
    expect(ms).toBeLessThan(CUT_OFF_WITHIN_MS);
  });

  it('cuts an error explosion it cannot see in the schema alone off at the budget, with bounded memory', () => {
    // 200 branches pass registration; against 10,000 wrong values they would produce 2 million errors
    const schema = compileArgumentSchema({
      type: 'object',
      additionalProperties: { anyOf: Array.from({ length: 200 }, (_, i) => ({ type: 'integer', minimum: i })) },
    });
    const args = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`a${i}`, 'x']));
    const heapBefore = process.memoryUsage().heapUsed;
    const { value, ms } = timed(() => schema.validate(args));
    expect(value).toEqual({ status: 'too_expensive' });
    expect(ms).toBeLessThan(CUT_OFF_WITHIN_MS);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(200 * 1024 * 1024);
  });

  // uniqueItems compares every pair: 40,000 objects would take seconds, so a call answered within a generous budget
  // in far less than that was skipped, not run
  const GENEROUS_BUDGET_MS = 5000;

  it('skips, for the cool-down, only arguments at least as large as the ones that blew the budget, then tries again', () => {
    let nowMs = 0;
    const schema = compileArgumentSchema(
      { type: 'object', properties: { rows: { type: 'array', uniqueItems: true } } },
      { nowMs: () => nowMs },
    );
    const rows = Array.from({ length: 40_000 }, (_, i) => ({ id: i }));
    expect(schema.validate({ rows })).toEqual({ status: 'too_expensive' });
    // the same call again (a batch of identical hostile events) does not pay the budget again
    const larger = { rows: [...rows, { id: -1 }] };
    const skipped = timed(() => schema.validate(larger, GENEROUS_BUDGET_MS));
    expect(skipped.value).toEqual({ status: 'too_expensive' });
    expect(skipped.ms).toBeLessThan(GENEROUS_BUDGET_MS / 5);
    // a small call, of any caller, is still checked
    expect(schema.validate({ rows: [1, 2] })).toMatchObject({ status: 'checked', errors: [] });
    expect(schema.validate({ rows: [1, 1] })).toMatchObject({
      status: 'checked',
      errors: [expect.objectContaining({ keyword: 'uniqueItems' })],
    });
    nowMs += EXPENSIVE_SCHEMA_COOLDOWN_MS;
    expect(timed(() => schema.validate({ rows })).ms).toBeGreaterThanOrEqual(ARGUMENT_VALIDATION_BUDGET_MS - 5);
  });

  it('halves the size it skips from when a smaller call also blows the budget within the cool-down', () => {
    const schema = compileArgumentSchema({ type: 'object', properties: { rows: { type: 'array', uniqueItems: true } } });
    const rowsOf = (count: number) => ({ rows: Array.from({ length: count }, (_, i) => ({ id: i })) });
    expect(schema.validate(rowsOf(80_000))).toEqual({ status: 'too_expensive' });
    expect(schema.validate(rowsOf(40_000))).toEqual({ status: 'too_expensive' });
    // now from about 20,000 rows on: skipped at once
    const smaller = rowsOf(25_000);
    expect(timed(() => schema.validate(smaller, GENEROUS_BUDGET_MS)).ms).toBeLessThan(GENEROUS_BUDGET_MS / 5);
    expect(schema.validate(rowsOf(3))).toMatchObject({ status: 'checked', errors: [] });
  });

  it('starts no cool-down for a run cut off with less than the whole budget', () => {
    const schema = compileArgumentSchema({ type: 'object', properties: { rows: { type: 'array', uniqueItems: true } } });
    const rows = Array.from({ length: 40_000 }, (_, i) => ({ id: i }));
    expect(schema.validate({ rows }, 2)).toEqual({ status: 'too_expensive' });
    expect(timed(() => schema.validate({ rows })).ms).toBeGreaterThanOrEqual(ARGUMENT_VALIDATION_BUDGET_MS - 5);
  });

  it('runs a pattern that backtracks in JavaScript in linear time', () => {
    const schema = compileArgumentSchema({
      type: 'object',
      properties: { n: { type: 'string', pattern: '^\\d*\\d*\\d*\\d*\\d*\\d*\\d*\\d*$' } },
    });
    const { value, ms } = timed(() => schema.validate({ n: `${'1'.repeat(64)}!` }));
    expect(value).toMatchObject({ status: 'checked', errors: [expect.objectContaining({ keyword: 'pattern', instancePath: '/n' })] });
    expect(ms).toBeLessThan(CUT_OFF_WITHIN_MS);
  });

  it('bounds uniqueItems on a huge array of objects by the budget', () => {
    const schema = compileArgumentSchema({ type: 'object', properties: { rows: { type: 'array', uniqueItems: true } } });
    const rows = Array.from({ length: 20_000 }, (_, i) => ({ id: i, tags: ['a', 'b'] }));
    const { value, ms } = timed(() => schema.validate({ rows }));
    expect(value).toEqual({ status: 'too_expensive' });
    expect(ms).toBeLessThan(CUT_OFF_WITHIN_MS);
  });

  it(`keeps the first ${MAX_REPORTED_SCHEMA_ERRORS} errors of a validation`, () => {
    const schema = compileArgumentSchema({ type: 'object', additionalProperties: { type: 'integer' } });
    const args = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`a${i}`, 'x']));
    const check = schema.validate(args);
    expect(check.status === 'checked' && check.errors.length).toBe(MAX_REPORTED_SCHEMA_ERRORS);
  });

  it(`checks only the first ${MAX_REPORTED_SCHEMA_ERRORS} undeclared names under a closed schema, counting the rest, with the same errors`, () => {
    const properties = { city: { type: 'string' }, days: { type: 'integer' } };
    const closed = compileArgumentSchema({ type: 'object', properties, required: ['city'], additionalProperties: false });
    // minProperties reads the set of names: every name of the call is checked, as before
    const everyName = compileArgumentSchema({
      type: 'object',
      properties,
      required: ['city'],
      additionalProperties: false,
      minProperties: 0,
    });
    const strays = Array.from({ length: 5000 }, (_, i) => `,"stray_${i}":${i}`).join('');
    // as the body parser reads it: `__proto__` is a plain own name, among the first strays
    const args: unknown = JSON.parse(`{"stray":1,"__proto__":{"x":1},"days":"three"${strays}}`);
    // a budget no machine runs out of: what is compared is the answers
    const check = closed.validate(args, GENEROUS_BUDGET_MS);
    const reference = everyName.validate(args, GENEROUS_BUDGET_MS);
    expect(reference).toMatchObject({ status: 'checked', unlistedErrors: 5002 + 2 - MAX_REPORTED_SCHEMA_ERRORS });
    expect(check).toEqual({ ...reference, elapsedMs: expect.any(Number) });
    const strayErrors = check.status === 'checked' ? check.errors.filter((error) => error.keyword === 'additionalProperties') : [];
    expect(strayErrors.slice(0, 3).map((error) => error.params.additionalProperty)).toEqual(['stray', '__proto__', 'stray_0']);
    // a call with no more strays than are reported is checked as it is
    expect(closed.validate({ days: 1, a: 1 })).toMatchObject({ status: 'checked', errors: expect.any(Array) });
    expect(closed.validate({ days: 1, a: 1 })).not.toHaveProperty('unlistedErrors');
  });

  it('answers unusable for a schema it cannot compile, and never throws', () => {
    expect(compileArgumentSchema({ type: 'object', properties: { a: { pattern: '(a)\\1' } } }).validate({ a: 'aa' })).toEqual({
      status: 'unusable',
    });
    expect(compileArgumentSchema({ type: 'object', properties: { a: { $ref: '#/nowhere' } } }).validate({})).toEqual({
      status: 'unusable',
    });
  });

  it('stops a schema that refers to itself in place (stored before registration refused it)', () => {
    const schema = compileArgumentSchema({ type: 'object', anyOf: [{ $ref: '#' }] });
    expect(timed(() => schema.validate({})).ms).toBeLessThan(CUT_OFF_WITHIN_MS);
    expect(schema.validate({})).toEqual({ status: 'too_expensive' });
  });

  it('validates ordinary arguments as before, within a fraction of the budget', () => {
    const schema = compileArgumentSchema({
      type: 'object',
      properties: { city: { type: 'string', pattern: '^[A-Z][a-z]+$' }, days: { type: 'integer', maximum: 14 } },
      required: ['city'],
      additionalProperties: false,
    });
    expect(schema.validate({ city: 'Paris', days: 3 })).toMatchObject({ status: 'checked', errors: [] });
    const check = schema.validate({ city: 'paris', days: 30, unit: 'c' });
    expect(check.status === 'checked' && check.errors.map((error) => error.keyword).sort()).toEqual([
      'additionalProperties',
      'maximum',
      'pattern',
    ]);
  });
});
