import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import type { JsonObject } from '../registry.types';
import { acceptanceForm, chooseParameters, compareParametersSchemas } from './schema-equivalence';

// What the real Python SDK (pydantic 2.13.5) and TypeScript SDK (zod 4) register for the same three tools,
// written by test/fixtures/sdk-schemas/capture.sh.
const REGISTERED = JSON.parse(readFileSync(join(__dirname, '../../../test/fixtures/sdk-schemas/registered-schemas.json'), 'utf8')) as {
  python: Record<string, { parameters: JsonObject; description: string }>;
  typescript: Record<string, { parameters: JsonObject; description: string }>;
};

const FACTORIAL: JsonObject = {
  type: 'object',
  properties: { n: { type: 'integer', minimum: 0, description: 'a non-negative integer' } },
  required: ['n'],
};

function withN(n: JsonObject, base: JsonObject = FACTORIAL): JsonObject {
  return { ...base, properties: { n } };
}

describe('compareParametersSchemas on what the two SDKs really register', () => {
  it.each(['gcd', 'factorial', 'search'])('finds the pydantic and zod schemas of %s equivalent, both ways', (name) => {
    const python = REGISTERED.python[name].parameters;
    const typescript = REGISTERED.typescript[name].parameters;
    expect(compareParametersSchemas(python, typescript)).toMatchObject({ isEquivalent: true });
    expect(compareParametersSchemas(typescript, python)).toMatchObject({ isEquivalent: true });
  });

  it('names what the pydantic and zod schemas of search differ in', () => {
    expect(compareParametersSchemas(REGISTERED.python.search.parameters, REGISTERED.typescript.search.parameters)).toEqual({
      isEquivalent: true,
      // both spell the nullable limit as anyOf: zod does when the integer has bounds
      differences: ['$schema', 'description', 'safe_integer_bounds', 'title'],
    });
  });

  it('sees that the two SDKs send the same base description for each tool', () => {
    for (const name of ['gcd', 'factorial', 'search']) {
      expect(REGISTERED.python[name].description).toBe(REGISTERED.typescript[name].description);
    }
  });

  it('agrees with Ajv on every argument of a sample: the pydantic schema of search accepts what the zod one does', () => {
    const ajv = new Ajv2020({ strict: false, allowUnionTypes: true });
    const python = ajv.compile(REGISTERED.python.search.parameters);
    const typescript = ajv.compile(REGISTERED.typescript.search.parameters);
    const samples = [
      { query: 'a' },
      { query: 'a', limit: null },
      { query: 'a', limit: 3 },
      { query: 'a', limit: 2.5 },
      { query: 'a', limit: '3' },
      { query: 'a', mode: 'deep', tags: ['x'] },
      { query: 'a', mode: 'slow' },
      { query: 'a', tags: [1] },
      { query: 'a', extra: true },
      { limit: 3 },
      { query: null },
    ];
    for (const sample of samples) expect([sample, python(sample)]).toEqual([sample, typescript(sample)]);
  });
});

describe('compareParametersSchemas: spellings of the same acceptance', () => {
  it.each<[string, JsonObject, JsonObject, string[]]>([
    ['key order', { required: ['n'], properties: FACTORIAL.properties, type: 'object' }, FACTORIAL, ['key_order']],
    ['required in another order', { type: 'object', required: ['a', 'b'] }, { type: 'object', required: ['b', 'a'] }, ['array_order']],
    ['enum in another order', withN({ enum: [1, 2] }), withN({ enum: [2, 1] }), ['array_order']],
    [
      'title on the object and a property',
      { ...withN({ type: 'integer', minimum: 0, title: 'N' }), title: 'factorial' },
      withN({ type: 'integer', minimum: 0 }),
      ['title'],
    ],
    [
      '$schema 2020-12 against none (draft-07)',
      { ...FACTORIAL, $schema: 'https://json-schema.org/draft/2020-12/schema' },
      FACTORIAL,
      ['$schema'],
    ],
    ['a description on one side only', withN({ type: 'integer', minimum: 0 }), FACTORIAL, ['description']],
    [
      "the root's description reworded (the tool's own description, which an SDK may copy from the served text)",
      { ...FACTORIAL, description: 'Returns n! for a non-negative integer n.' },
      { ...FACTORIAL, description: "Returns n! for a non-negative integer n.\n\n'n' above 20 fails (overflow)." },
      ['description'],
    ],
    [
      'default, examples, $comment',
      withN({ type: 'integer', minimum: 0, default: 1, examples: [3], $comment: 'x' }),
      withN({ type: 'integer', minimum: 0 }),
      ['$comment', 'default', 'examples'],
    ],
    ['additionalProperties: true against none', { ...FACTORIAL, additionalProperties: true }, FACTORIAL, ['additionalProperties_true']],
    [
      'anyOf [string, null] against type [string, null]',
      withN({ anyOf: [{ type: 'string', maxLength: 5 }, { type: 'null' }] }),
      withN({ type: ['string', 'null'], maxLength: 5 }),
      ['nullable_form'],
    ],
    [
      'zod safe-integer bounds on an integer',
      withN({ type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 }),
      withN({ type: 'integer' }),
      ['safe_integer_bounds'],
    ],
    ['a one-element type list', withN({ type: ['integer'] }), withN({ type: 'integer' }), ['array_order']],
  ])('%s', (_what, current, incoming, differences) => {
    expect(compareParametersSchemas(current, incoming)).toEqual({ isEquivalent: true, differences });
  });
});

describe('compareParametersSchemas: schemas that accept other arguments', () => {
  it.each<[string, JsonObject, JsonObject]>([
    [
      'a new required field',
      FACTORIAL,
      { ...FACTORIAL, properties: { ...(FACTORIAL.properties as JsonObject), m: { type: 'integer' } }, required: ['n', 'm'] },
    ],
    ['a changed type', FACTORIAL, withN({ type: 'number', minimum: 0, description: 'a non-negative integer' })],
    ['a maximum', FACTORIAL, withN({ type: 'integer', minimum: 0, maximum: 20, description: 'a non-negative integer' })],
    ['additionalProperties: false against none', FACTORIAL, { ...FACTORIAL, additionalProperties: false }],
    [
      'safe-integer bounds on a number (they refuse 1e300)',
      withN({ type: 'number', maximum: 9007199254740991 }),
      withN({ type: 'number' }),
    ],
    ['a bound one off the safe integer', withN({ type: 'integer', maximum: 9007199254740990 }), withN({ type: 'integer' })],
    [
      'a nullable enum as a type list (null is not in the enum)',
      withN({ anyOf: [{ type: 'string', enum: ['a'] }, { type: 'null' }] }),
      withN({ type: ['string', 'null'], enum: ['a'] }),
    ],
    [
      'a property named title, not a title',
      { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
      { type: 'object', properties: {}, required: ['title'] },
    ],
    ['a reworded description', FACTORIAL, withN({ type: 'integer', minimum: 0, description: 'how many to multiply' })],
    [
      'a tuple under draft-07 and 2020-12',
      { type: 'object', properties: { p: { type: 'array', items: [{ type: 'string' }] } } },
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { p: { type: 'array', items: [{ type: 'string' }] } },
      },
    ],
    [
      '$ref with a sibling under draft-07 and 2020-12',
      { type: 'object', $defs: { s: { type: 'string' } }, properties: { p: { $ref: '#/$defs/s', maxLength: 2 } } },
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { s: { type: 'string' } },
        properties: { p: { $ref: '#/$defs/s', maxLength: 2 } },
      },
    ],
  ])('%s', (_what, current, incoming) => {
    expect(compareParametersSchemas(current, incoming)).toEqual({ isEquivalent: false });
    expect(compareParametersSchemas(incoming, current)).toEqual({ isEquivalent: false });
  });

  it('moves a description zod nests in a nullable branch to the property, so a reworded one is still seen', () => {
    const pydantic = withN({ anyOf: [{ type: 'integer' }, { type: 'null' }], description: 'how many' });
    const zodSame = withN({ anyOf: [{ type: 'integer', description: 'how many' }, { type: 'null' }] });
    expect(compareParametersSchemas(pydantic, zodSame)).toEqual({ isEquivalent: true, differences: ['description'] });
    const zodReworded = withN({ anyOf: [{ type: 'integer', description: 'how much' }, { type: 'null' }] });
    expect(compareParametersSchemas(pydantic, zodReworded)).toEqual({ isEquivalent: false });
  });
});

describe('acceptanceForm', () => {
  it('writes pydantic and zod spellings of search the same way', () => {
    const expected = {
      type: 'object',
      properties: {
        query: { type: 'string' },
        limit: { type: ['integer', 'null'] },
        mode: { type: 'string', enum: ['deep', 'fast'] },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['query'],
    };
    expect(acceptanceForm(REGISTERED.python.search.parameters).form).toEqual(expected);
    expect(acceptanceForm(REGISTERED.typescript.search.parameters).form).toEqual(expected);
  });

  it('keeps keywords it does not know as they are', () => {
    expect(acceptanceForm({ type: 'object', 'x-vendor': { title: 'kept' } }).form).toEqual({
      type: 'object',
      'x-vendor': { title: 'kept' },
    });
  });
});

describe('chooseParameters', () => {
  it('stores a new tool’s schema', () => {
    expect(chooseParameters(null, FACTORIAL)).toEqual({
      parameters: FACTORIAL,
      choice: { kept: 'incoming', reason: 'new_tool', differences: [] },
    });
  });

  it('keeps the current schema when the incoming one is the same or equivalent, the incoming one when it changed', () => {
    const python = REGISTERED.python.factorial.parameters;
    const typescript = REGISTERED.typescript.factorial.parameters;
    expect(chooseParameters(python, { ...python })).toEqual({
      parameters: python,
      choice: { kept: 'current', reason: 'identical', differences: [] },
    });
    expect(chooseParameters(python, typescript)).toEqual({
      parameters: python,
      choice: { kept: 'current', reason: 'equivalent', differences: ['$schema', 'description', 'safe_integer_bounds', 'title'] },
    });
    const capped = withN({ type: 'integer', minimum: 0, maximum: 20 });
    expect(chooseParameters(python, capped)).toEqual({
      parameters: capped,
      choice: { kept: 'incoming', reason: 'changed', differences: [] },
    });
  });
});
