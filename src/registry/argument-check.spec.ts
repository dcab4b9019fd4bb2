import { type ArgumentSchema, compileArgumentSchema } from '../diagnosis';
import { checkArguments, hasUndeclaredArguments } from './argument-check';

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
          category: 'argument_mismatch',
          subtype: 'unknown_argument',
          path: '/numbers',
          message: "'numbers' is not a parameter of this tool; the parameter is 'number' (one integer); pass the single item itself",
        },
        {
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
    expect(result.errors.find((error) => error.subtype === 'unknown_argument')?.message).toMatch(/call this tool once per item$/);
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
      errors: [{ subtype: 'type_mismatch', message: "'number' must be integer, not an array: call this tool once per item" }],
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
      { category: 'out_of_range', subtype: 'above_maximum', path: '/number', message: "'number' must be <= 1000000" },
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

  it('reads arguments sent as a JSON string and refuses what is not an object', () => {
    expect(check('{"number": 12}').valid).toBe(true);
    expect(check('{"number": ').errors).toEqual([
      { category: 'argument_mismatch', subtype: 'malformed_arguments', path: '', message: expect.any(String) },
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

  it('validates once for the errors and the diagnosis, and gives the suggestion only what is left of the budget', () => {
    const budgets: Array<number | undefined> = [];
    const counting: ArgumentSchema = {
      json: primeFactors.json,
      validate: (args, budgetMs) => {
        budgets.push(budgetMs);
        const check = primeFactors.validate(args, budgetMs);
        return check.status === 'checked' ? { ...check, elapsedMs: 20 } : check;
      },
    };
    expect(check({ numbers: [12] }, counting).suggestion).toEqual({ number: 12 });
    expect(budgets).toEqual([undefined, 5]);
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
      { category: 'argument_mismatch', subtype: 'missing_argument', path: '/toString', message: "'toString' is required" },
    ]);
  });

  it('suggests renaming to a parameter named constructor, and never to an inherited name', () => {
    const result = check({ toString: 'x', construtor: 3 }, inherited);
    expect(result.suggestion).toEqual({ toString: 'x', constructor: 3 });
    expect(Object.getPrototypeOf(result.suggestion)).toBe(Object.prototype);
  });
});
