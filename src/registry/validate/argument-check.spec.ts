import { type ArgumentSchema, compileArgumentSchema } from '../../diagnosis/index';
import { checkArguments, checkArgumentsInSteps, hasUndeclaredArguments } from './argument-check';
import { learnedLimitsOf } from '../guard/learned-limits';

const primeFactors = compileArgumentSchema({
  type: 'object',
  properties: { number: { type: 'integer', maximum: 1000000 } },
  required: ['number'],
  additionalProperties: false,
});
const weather = compileArgumentSchema({
  type: 'object',
  properties: { city: { type: 'string' }, unit: { enum: ['c', 'f'] } },
  required: ['city'],
});
const check = (args: unknown, schema = primeFactors, learned: [string, string][] = []) =>
  checkArguments({ tool: 'prime_factors', arguments: args, schema, learnedRenames: new Map(learned) });

describe('checkArguments', () => {
  it('answers valid with no errors and no suggestion', () => {
    expect(check({ number: 12 })).toEqual({ valid: true, errors: [], suggestion: null, checked: true, reason: null });
  });

  it('renames a near-miss argument and unwraps a one-element array for a scalar', () => {
    const result = check({ numbers: [12] });
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual(
      expect.arrayContaining([
        {
          kind: 'schema',
          category: 'argument_mismatch',
          subtype: 'unknown_argument',
          path: '/numbers',
          message: "'numbers' is not a parameter of this tool; the parameter is 'number' (one integer); pass the single item itself",
        },
        {
          kind: 'schema',
          category: 'argument_mismatch',
          subtype: 'missing_argument',
          path: '/number',
          message: "'number' is required; it was sent as 'numbers'",
        },
      ]),
    );
    expect(result.suggestion).toEqual({ number: 12 });
  });

  it('offers no suggestion for several items where a scalar belongs and says to call once per item', () => {
    const result = check({ numbers: [12, 15] });
    expect(result.suggestion).toBeNull();
    expect(result.errors.find((error) => error.subtype === 'unknown_argument')?.message).toBe(
      "'numbers' is not a parameter of this tool; the parameter is 'number' (one integer): pass one integer per call: call this tool once per item, for each of 12, 15",
    );
  });

  it('unwraps a one-element array under the right name, and refuses several', () => {
    expect(check({ number: [7] })).toMatchObject({
      errors: [
        {
          category: 'argument_mismatch',
          subtype: 'type_mismatch',
          path: '/number',
          message: "'number' must be integer, not an array; pass the single item itself",
        },
      ],
      suggestion: { number: 7 },
    });
    expect(check({ number: [7, 8] })).toMatchObject({
      errors: [
        {
          subtype: 'type_mismatch',
          message: "'number' must be integer, not an array: pass one integer per call: call this tool once per item, for each of 7, 8",
        },
      ],
      suggestion: null,
    });
  });

  it('uses a rename learned from the project events when the name alone says nothing', () => {
    expect(check({ value: 12 }).suggestion).toEqual({ number: 12 });
    expect(check({ payload: 12 }, primeFactors, [['payload', 'number']]).suggestion).toEqual({ number: 12 });
    expect(check({ payload: 12, extra: 1 }).suggestion).toBeNull();
  });

  it('returns every error, with range and enum categories, and no suggestion when a correction would not validate', () => {
    const result = check({ numbers: [2000000] });
    expect(result.suggestion).toBeNull();
    const rangeOnly = check({ number: 2000000 });
    expect(rangeOnly.errors).toEqual([
      { kind: 'schema', category: 'out_of_range', subtype: 'above_maximum', path: '/number', message: "'number' must be <= 1000000" },
    ]);
    expect(check({ unit: 'k' }, weather).errors.map((error) => [error.subtype, error.path])).toEqual([
      ['missing_argument', '/city'],
      ['not_in_enum', '/unit'],
    ]);
  });

  it('names a stray argument beside a missing one when the schema allows extra properties', () => {
    const result = check({ town: 'Paris' }, weather);
    expect(result.errors.map((error) => [error.subtype, error.path])).toEqual([
      ['missing_argument', '/city'],
      ['unknown_argument', '/town'],
    ]);
    expect(result.suggestion).toEqual({ city: 'Paris' });
  });

  it('lists 100 errors of a call with thousands of undeclared names, counts the rest, and copies nothing for a suggestion', () => {
    const values: unknown[] = [];
    const recording: ArgumentSchema = {
      json: primeFactors.json,
      validate: (value, budgetMs) => {
        values.push(value);
        return primeFactors.validate(value, budgetMs);
      },
    };
    const args = { numbers: [12], ...Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`extra_${i}`, i])) };
    const result = check(args, recording);
    expect(result).toMatchObject({ valid: false, checked: true, suggestion: null });
    expect(result.errors).toHaveLength(100);
    // 3,001 undeclared names and the missing `number`: 3,002 errors
    expect(result.incomplete).toContain('intended names looked up for the first 16 of 3001 unknown names only');
    expect(result.incomplete).toContain('2902 more errors not listed (at most 100 per answer)');
    // the renamed `numbers` leaves 3,000 strays the schema refuses: no corrected copy is built and checked
    expect(values).toEqual([args]);
  });

  it('counts the strays beside a missing argument past the ones listed, and still suggests the rename', () => {
    const args = { town: 'Paris', ...Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`extra_${i}`, i])) };
    const result = check(args, weather);
    expect(result.errors).toHaveLength(100);
    expect(result.incomplete).toContain('2902 more errors not listed');
    expect(result.suggestion).toEqual({ ...args, town: undefined, city: 'Paris' });
  });

  it('reads arguments sent as a JSON string and refuses what is not an object', () => {
    expect(check('{"number": 12}').valid).toBe(true);
    expect(check('{"number": ').errors).toEqual([
      { kind: 'schema', category: 'argument_mismatch', subtype: 'malformed_arguments', path: '', message: expect.any(String) },
    ]);
    expect(check([12]).errors[0].subtype).toBe('malformed_arguments');
  });
});

describe('hasUndeclaredArguments', () => {
  it('lets arguments through unchecked, saying why, when the schema is too expensive or cannot be compiled', () => {
    const tooExpensive: ArgumentSchema = { json: primeFactors.json, validate: () => ({ status: 'too_expensive' }) };
    expect(check({ numbers: [12] }, tooExpensive)).toEqual({
      valid: true,
      errors: [],
      suggestion: null,
      checked: false,
      reason: expect.stringMatching(/^schema too expensive: .* within 25 ms/),
    });
    const unusable = compileArgumentSchema({ type: 'object', properties: { a: { type: 'string', pattern: '(?=a)' } } });
    expect(check({ a: 'b' }, unusable)).toMatchObject({ valid: true, checked: false, reason: expect.stringMatching(/^schema unusable/) });
  });

  /** The call's clocks, wall and CPU, moved by hand: the steps take exactly what a test says however busy the machine. */
  function withClocks<T>(run: (advance: (wallMs: number, cpuMs: number) => void) => T): T {
    let wallMs = 1_000;
    let cpuUs = 5_000_000;
    const wall = jest.spyOn(performance, 'now').mockImplementation(() => wallMs);
    const cpu = jest
      .spyOn(process, 'cpuUsage')
      .mockImplementation((previous?: NodeJS.CpuUsage) =>
        previous ? { user: cpuUs - previous.user - previous.system, system: 0 } : { user: cpuUs, system: 0 },
      );
    try {
      return run((byWallMs, byCpuMs) => {
        wallMs += byWallMs;
        cpuUs += byCpuMs * 1000;
      });
    } finally {
      wall.mockRestore();
      cpu.mockRestore();
    }
  }

  it.each([
    ['spent 15 ms computing', 15, 15, 10],
    // 40 ms of wall time with 2 ms of CPU: a busy machine starved the call, which has spent 2 ms of its own
    ['was starved for 40 ms while it spent 2 ms of CPU', 40, 2, 23],
  ])(
    'validates once for the errors and the diagnosis, and gives the suggestion what is left of the budget when the first check %s',
    (_, wallMs, cpuMs, leftMs) => {
      const budgets: Array<number | undefined> = [];
      const suggestion = withClocks((advance) => {
        const counting: ArgumentSchema = {
          json: primeFactors.json,
          validate: (args, budgetMs) => {
            budgets.push(budgetMs);
            const check = primeFactors.validate(args, budgetMs);
            if (budgets.length === 1) advance(wallMs, cpuMs);
            return check;
          },
        };
        return check({ numbers: [12] }, counting).suggestion;
      });
      expect(suggestion).toEqual({ number: 12 });
      expect(budgets).toEqual([undefined, leftMs]);
    },
  );

  it('pauses after the schema check and between names looked up, counting only its own time against the budget', () => {
    let clockMs = 1_000;
    const clock = jest.spyOn(performance, 'now').mockImplementation(() => clockMs);
    try {
      const args = { numbers: [12], extra_a: 1, extra_b: 2 };
      const steps = checkArgumentsInSteps({ tool: 'prime_factors', arguments: args, schema: primeFactors, learnedRenames: new Map() });
      let pauses = 0;
      let step = steps.next();
      // at each pause other requests run for 100 ms, four budgets' worth
      for (; !step.done; step = steps.next()) {
        pauses++;
        clockMs += 100;
      }
      expect(pauses).toBe(3);
      expect(step.value).toMatchObject({ valid: false, checked: true, suggestion: null });
      // every name was looked up: none of the 300 ms paused was the call's
      expect(step.value.incomplete).toBeUndefined();
      expect(step.value.errors.find((error) => error.path === '/numbers')?.message).toContain("the parameter is 'number'");
    } finally {
      clock.mockRestore();
    }
  });

  it('tells whether learned renames could matter', () => {
    expect(hasUndeclaredArguments({ number: 1 }, primeFactors)).toBe(false);
    expect(hasUndeclaredArguments({ numbers: 1 }, primeFactors)).toBe(true);
  });
});

describe('parameters named like Object.prototype members', () => {
  const inherited = compileArgumentSchema({
    type: 'object',
    properties: { toString: { type: 'string' }, constructor: { type: 'integer' } },
    required: ['toString'],
    additionalProperties: false,
  });

  it('judges toString and constructor by the arguments, not by what every object inherits', () => {
    expect(check({ toString: 'x' }, inherited)).toEqual({ valid: true, errors: [], suggestion: null, checked: true, reason: null });
    expect(check({}, inherited).errors).toEqual([
      { kind: 'schema', category: 'argument_mismatch', subtype: 'missing_argument', path: '/toString', message: "'toString' is required" },
    ]);
  });

  it('suggests renaming to a parameter named constructor, and never to an inherited name', () => {
    const result = check({ toString: 'x', construtor: 3 }, inherited);
    expect(result.suggestion).toEqual({ toString: 'x', constructor: 3 });
    expect(Object.getPrototypeOf(result.suggestion)).toBe(Object.prototype);
  });
});

describe('learned limits', () => {
  const factorial = compileArgumentSchema({ type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'] });
  const warning = (learnedLimit: unknown, count = 30, kind = 'learned_limit') => ({
    id: '00000000-0000-4000-8000-000000000001',
    kind,
    text: "'n' above 20 fails (overflow).",
    evidence: { count, firstSeen: null, lastSeen: null, exampleEventIds: [], learnedLimit },
    status: 'active' as const,
  });
  const above20 = learnedLimitsOf([warning({ argumentPath: '/n', bound: 'upper', value: 20, isInclusive: false, reason: 'overflow' })]);
  const checkN = (args: unknown, limits = above20, checks: 'all' | 'schema' = 'all') =>
    checkArguments({ tool: 'factorial', arguments: args, schema: factorial, learnedRenames: new Map(), learnedLimits: limits, checks });

  it('refuses a value the schema allows but that is beyond an active learned limit, naming the limit and its evidence', () => {
    expect(checkN({ n: 25 })).toEqual({
      valid: false,
      errors: [
        {
          kind: 'beyond_learned_limit',
          category: 'overflow',
          subtype: 'above_maximum',
          path: '/n',
          message: "'n' is 25; above 20 fails (overflow), learned from 30 failed calls",
          limit: { bound: 'upper', value: 20, isInclusive: false },
          evidenceCount: 30,
        },
      ],
      suggestion: null,
      checked: true,
      reason: null,
    });
  });

  it('accepts the limit itself and below, and values given as a JSON string are read the same', () => {
    expect(checkN({ n: 20 }).valid).toBe(true);
    expect(checkN({ n: 0 }).valid).toBe(true);
    expect(checkN('{"n": 21}').errors.map((e) => e.kind)).toEqual(['beyond_learned_limit']);
  });

  it('holds inclusive and lower limits to their side', () => {
    const limits = learnedLimitsOf([
      warning({ argumentPath: '/n', bound: 'upper', value: 25, isInclusive: true, reason: 'out of range' }),
      warning({ argumentPath: '/n', bound: 'lower', value: 3, isInclusive: false, reason: 'out of range' }),
    ]);
    expect(checkN({ n: 25 }, limits).errors).toMatchObject([{ category: 'out_of_range', subtype: 'above_maximum', limit: { value: 25 } }]);
    expect(checkN({ n: 24 }, limits).valid).toBe(true);
    expect(checkN({ n: 3 }, limits).valid).toBe(true);
    expect(checkN({ n: 2 }, limits).errors).toMatchObject([
      { subtype: 'below_minimum', message: "'n' is 2; below 3 fails (out of range), learned from 30 failed calls" },
    ]);
  });

  it('checks only the schema when asked to', () => {
    expect(checkN({ n: 25 }, above20, 'schema')).toMatchObject({ valid: true, errors: [] });
  });

  it('reports schema errors and learned ones together', () => {
    const result = checkN(
      { n: 25, extra: 1 },
      learnedLimitsOf([warning({ argumentPath: '/n', bound: 'upper', value: 20, isInclusive: false, reason: 'overflow' })]),
    );
    expect(result.valid).toBe(false);
    expect(checkN({ n: -1 }).errors.map((e) => [e.kind, e.subtype])).toEqual([['schema', 'below_minimum']]);
  });

  it('ignores other warnings, malformed limits and values that are not numbers', () => {
    const limits = learnedLimitsOf([
      warning({ argumentPath: '/n', bound: 'upper', value: 20, isInclusive: false }, 5, 'manual'),
      warning({ argumentPath: 'n', bound: 'upper', value: 20 }),
      warning({ argumentPath: '/n', bound: 'sideways', value: 20 }),
      warning({ argumentPath: '/n', bound: 'upper', value: '20' }),
      warning(null),
    ]);
    expect(limits).toEqual([]);
    expect(checkN({ n: '25' }).errors.map((e) => e.kind)).toEqual(['schema']);
  });
});
