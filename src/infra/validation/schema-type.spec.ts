import { ajvFor } from './ajv-factory';
import { FromSchema } from './schema-type';

/** Compiles only when A and B are the same type (not merely assignable either way). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(isEqual: T): T {
  return isEqual;
}

describe('FromSchema', () => {
  it('types an object: required properties required, the others optional, nothing read-only', () => {
    const schema = {
      type: 'object',
      required: ['id', 'tags'],
      properties: {
        id: { type: 'string', format: 'uuid' },
        tags: { type: 'array', items: { type: 'string' } },
        count: { type: 'integer' },
        extra: {},
      },
    } as const;
    expect(assertType<Equal<FromSchema<typeof schema>, { id: string; tags: string[]; count?: number; extra?: unknown }>>(true)).toBe(true);
    const value: FromSchema<typeof schema> = { id: '0b6c6f9e-5f1e-4a8a-9a51-6f3f2a1f0c11', tags: ['a'] };
    expect(ajvFor('body').validate(schema, value)).toBe(true);
  });

  it('types an enum as its values, several type names as their union, and a bare object as a record', () => {
    const schema = {
      type: 'object',
      required: ['event', 'incidentId', 'notification'],
      properties: { event: { enum: ['opened', 'resolved'] }, incidentId: { type: ['string', 'null'] }, notification: { type: 'object' } },
    } as const;
    type Expected = { event: 'opened' | 'resolved'; incidentId: string | null; notification: Record<string, unknown> };
    expect(assertType<Equal<FromSchema<typeof schema>, Expected>>(true)).toBe(true);
    const value: Expected = { event: 'opened', incidentId: null, notification: { text: 'hi' } };
    expect(ajvFor('body').validate(schema, value)).toBe(true);
  });

  it('types nested objects and arrays of objects', () => {
    const schema = {
      type: 'array',
      items: {
        type: 'object',
        required: ['error'],
        properties: { error: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } } },
      },
    } as const;
    expect(assertType<Equal<FromSchema<typeof schema>, Array<{ error: { message: string } }>>>(true)).toBe(true);
    expect(ajvFor('body').validate(schema, [{ error: {} }])).toBe(false);
  });
});
