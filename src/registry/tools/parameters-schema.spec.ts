import { checkParametersSchema, MAX_SCHEMA_DEPTH } from './parameters-schema';

const check = (schema: unknown) => checkParametersSchema(schema, '/parameters');

describe('checkParametersSchema', () => {
  it.each([
    ['a plain object schema', { type: 'object', properties: { number: { type: 'integer', maximum: 1000000 } }, required: ['number'] }],
    [
      'an OpenAI strict-mode schema with nullable unions',
      {
        type: 'object',
        properties: { city: { type: 'string' }, unit: { type: ['string', 'null'], enum: ['c', 'f', null] } },
        required: ['city', 'unit'],
        additionalProperties: false,
      },
    ],
    [
      'a pydantic schema with titles, defaults and anyOf',
      {
        title: 'Args',
        type: 'object',
        properties: { n: { anyOf: [{ type: 'integer' }, { type: 'null' }], default: null, title: 'N' } },
      },
    ],
    [
      'a zod-to-json-schema output with $schema draft-07 and local $ref',
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        definitions: { day: { type: 'string', format: 'date' } },
        properties: { from: { $ref: '#/definitions/day' } },
      },
    ],
    [
      'a 2020-12 schema from an MCP server',
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false } },
      },
    ],
  ])('accepts %s', (_, schema) => {
    expect(check(schema)).toEqual([]);
  });

  it('names a misspelled type by its path, with the allowed values', () => {
    expect(check({ type: 'object', properties: { n: { type: 'integr' } } })).toEqual([
      { path: '/parameters/properties/n/type', message: expect.stringContaining('must be one of "array", "boolean", "integer"') },
    ]);
  });

  it('refuses an unknown keyword in strict mode, at its path', () => {
    expect(check({ type: 'object', properties: { n: { type: 'integer', example: 3 } } })).toEqual([
      { path: '/parameters/properties/n/example', message: 'unknown keyword: "example"' },
    ]);
  });

  it('refuses properties without type object and required names never declared', () => {
    expect(check({ type: 'object', properties: { a: { properties: {} } } })[0].path).toBe('/parameters/properties/a');
    expect(check({ type: 'object', properties: {}, required: ['x'] })[0].message).toContain('required property "x" is not defined');
  });

  it('requires type object at the top', () => {
    expect(check({ type: 'string' })).toEqual([{ path: '/parameters/type', message: expect.stringContaining('must be "object"') }]);
    expect(check({ properties: {} })[0].path).toBe('/parameters/type');
    expect(check([])).toEqual([{ path: '/parameters', message: 'must be a JSON Schema object' }]);
  });

  it('refuses a remote $ref', () => {
    expect(check({ type: 'object', properties: { n: { $ref: 'https://example.com/n.json' } } })).toEqual([
      { path: '/parameters/properties/n/$ref', message: expect.stringContaining('local reference') },
    ]);
  });

  it('refuses an unknown $schema, a schema over 64 KB and one nested too deeply', () => {
    expect(check({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' })[0].path).toBe('/parameters/$schema');
    const huge = { type: 'object', description: 'x'.repeat(70 * 1024) };
    expect(check(huge)[0].message).toBe('must be at most 64 KB as JSON');
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < MAX_SCHEMA_DEPTH; i++) deep = { type: 'object', properties: { a: deep } };
    expect(check(deep)[0].message).toBe(`nests deeper than ${MAX_SCHEMA_DEPTH} levels`);
  });

  it('accepts two versions of a schema with the same $id', () => {
    expect(check({ $id: 'https://example.com/t', type: 'object', properties: { a: { type: 'string' } } })).toEqual([]);
    expect(check({ $id: 'https://example.com/t', type: 'object', properties: { b: { type: 'string' } } })).toEqual([]);
  });
});
