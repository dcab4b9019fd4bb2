import { estimatePatternUnits, MAX_PATTERN_COMPILE_UNITS } from '../../diagnosis/index';
import {
  patternsOf,
  REGISTRATION_DEADLINE_MS,
  REGISTRATION_WORK_UNITS,
  RegistrationBudget,
  SCHEMA_BASE_UNITS,
  SCHEMA_NODE_UNITS,
  schemaCompileUnits,
  shapeCheckUnits,
} from './registration-budget';

describe('RegistrationBudget', () => {
  const clock = (startMs = 0) => {
    let nowMs = startMs;
    return { now: () => nowMs, advance: (ms: number) => (nowMs += ms) };
  };

  it('counts work until the next piece would pass the units, then refuses it without counting it', () => {
    const budget = new RegistrationBudget(clock().now, Infinity, 1000);
    expect(budget.charge(600)).toBeNull();
    expect(budget.charge(400)).toBeNull();
    expect(budget.charge(1)).toEqual({ reason: 'units' });
    expect(budget.units).toBe(1000);
  });

  it('refuses any work once the deadline has passed, whatever is left of the units', () => {
    const time = clock(5000);
    const budget = new RegistrationBudget(time.now);
    expect(budget.charge(1)).toBeNull();
    time.advance(REGISTRATION_DEADLINE_MS);
    expect(budget.charge(1)).toEqual({ reason: 'deadline' });
    expect(budget.units).toBe(1);
  });

  it('says which bound ran out, with the bound', () => {
    const budget = new RegistrationBudget(clock().now);
    expect(budget.describe({ reason: 'units' })).toContain(`${REGISTRATION_WORK_UNITS} work units`);
    expect(budget.describe({ reason: 'deadline' })).toContain(`${REGISTRATION_DEADLINE_MS / 1000} s`);
  });

  it('fits a whole tool list of ordinary schemas (500 tools of 20 properties, each with a pattern) in one request', () => {
    const schema = {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 19 }, (_, i) => [`p${i}`, { type: 'string', pattern: '^[a-z0-9_]{1,64}$' }])),
    };
    const perTool =
      shapeCheckUnits(Buffer.byteLength(JSON.stringify(schema))) +
      schemaCompileUnits(schema) +
      19 * estimatePatternUnits('^[a-z0-9_]{1,64}$');
    expect(500 * perTool).toBeLessThan(REGISTRATION_WORK_UNITS);
  });
});

describe('schemaCompileUnits', () => {
  it('charges a fresh Ajv and each subschema, data under enum included', () => {
    expect(schemaCompileUnits({ type: 'object' })).toBe(SCHEMA_BASE_UNITS + SCHEMA_NODE_UNITS);
    const schema = { type: 'object', properties: { a: { type: 'string' }, b: { enum: [{ x: 1 }] } } };
    // the root, properties, a, b and the object under enum
    expect(schemaCompileUnits(schema)).toBe(SCHEMA_BASE_UNITS + 5 * SCHEMA_NODE_UNITS);
  });
});

describe('patternsOf', () => {
  it('finds every pattern and patternProperties key with its path, in document order', () => {
    const schema = {
      type: 'object',
      properties: { 'a/b': { type: 'string', pattern: '^x$' }, list: { type: 'array', items: [{ pattern: '^y$' }] } },
      patternProperties: { '^z~': { type: 'integer' } },
      propertyNames: { pattern: '^n' },
    };
    expect(patternsOf(schema, '/tools/3/parameters')).toEqual([
      { pattern: '^x$', path: '/tools/3/parameters/properties/a~1b/pattern' },
      { pattern: '^y$', path: '/tools/3/parameters/properties/list/items/0/pattern' },
      { pattern: '^z~', path: '/tools/3/parameters/patternProperties/^z~0' },
      { pattern: '^n', path: '/tools/3/parameters/propertyNames/pattern' },
    ]);
  });
});

describe('estimatePatternUnits (charged before compiling)', () => {
  it.each([
    ['a plain pattern', '^[a-z0-9_]{1,64}$', 100, 200],
    ['a counted repetition, by its program', 'a{999}'.repeat(5), 4990, 5010],
    ['a pattern refused from its text, by its length', '(?=a)b', 6, 6],
    ['a pattern too long to read, at the length cap', 'a'.repeat(5000), 1000, 1000],
  ])('%s', (_, pattern, atLeast, atMost) => {
    expect(estimatePatternUnits(pattern)).toBeGreaterThanOrEqual(atLeast);
    expect(estimatePatternUnits(pattern)).toBeLessThanOrEqual(atMost);
  });

  it('weighs every copy of a Unicode property class, so repeated ones are refused before compiling', () => {
    expect(estimatePatternUnits('\\p{L}{0,40}'.repeat(60))).toBeGreaterThan(MAX_PATTERN_COMPILE_UNITS);
    expect(estimatePatternUnits('[a-z]{0,40}'.repeat(60))).toBeLessThan(estimatePatternUnits('\\p{L}{0,40}'.repeat(60)) / 4);
  });
});
