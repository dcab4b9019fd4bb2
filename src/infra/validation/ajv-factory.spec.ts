import { ajvFor, toFieldErrors } from './ajv-factory';

const schema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { enum: ['a', 'b'] },
    count: { type: 'integer', minimum: 1, default: 1 },
    at: { type: 'string', format: 'date-time' },
  },
  if: { properties: { kind: { const: 'b' } }, required: ['kind'] },
  then: { required: ['count'] },
} as const;
const { if: _if, then: _then, ...querySchema } = schema;

describe('ajvFor', () => {
  it('shares one instance per purpose', () => {
    expect(ajvFor('body')).toBe(ajvFor('body'));
    expect(ajvFor('body')).not.toBe(ajvFor('query'));
  });

  it('validates bodies as sent: no coercion, no defaults', () => {
    const validate = ajvFor('body').compile(schema);
    const body = { kind: 'a' };
    expect(validate(body)).toBe(true);
    expect(body).toEqual({ kind: 'a' });
    expect(validate({ kind: 'a', count: '2' })).toBe(false);
  });

  it('coerces query values and fills in defaults', () => {
    const validate = ajvFor('query').compile(querySchema);
    const query: Record<string, unknown> = { kind: 'a', count: '2' };
    expect(validate(query)).toBe(true);
    expect(query.count).toBe(2);
    const bare: Record<string, unknown> = { kind: 'a' };
    expect(validate(bare)).toBe(true);
    expect(bare.count).toBe(1);
  });

  it.each(['body', 'query'] as const)('checks date-time formats for %s', (purpose) => {
    expect(ajvFor(purpose).compile(querySchema)({ kind: 'a', at: 'soon' })).toBe(false);
  });
});

describe('toFieldErrors', () => {
  const validate = ajvFor('body').compile(schema);
  const errorsOf = (value: unknown, prefix = '', unknownFieldMessage?: string) => {
    validate(value);
    return toFieldErrors(validate.errors, prefix, unknownFieldMessage);
  };

  it.each([
    [{}, '/kind', 'is required'],
    [{ kind: 'c' }, '/kind', 'must be one of "a", "b"'],
    [{ kind: 'a', colour: 1 }, '/colour', 'is not a known field'],
    [{ kind: 'a', count: 0 }, '/count', 'must be >= 1'],
    [[], '', 'must be object'],
  ])('maps %j to %s %s', (value, path, message) => {
    expect(errorsOf(value)).toEqual([{ path, message }]);
  });

  it('roots paths at the prefix and names an unknown field as asked', () => {
    expect(errorsOf({ kind: 'a', colour: 1 }, '/query', 'is not a known parameter')).toEqual([
      { path: '/query/colour', message: 'is not a known parameter' },
    ]);
  });

  it('drops the `if` error that only repeats its `then`', () => {
    expect(errorsOf({ kind: 'b' }, '/events/0')).toEqual([{ path: '/events/0/count', message: 'is required' }]);
  });
});
