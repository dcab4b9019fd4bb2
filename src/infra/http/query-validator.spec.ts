import { ApiError } from './api-error';
import { compileQueryValidator } from './query-validator';

const validate = compileQueryValidator<{ limit: number; tool?: string }>({
  properties: { limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 }, tool: { type: 'string', maxLength: 5 } },
});

function detailsOf(query: Record<string, unknown>) {
  try {
    validate(query);
    return [];
  } catch (error) {
    return (error as ApiError).options.details;
  }
}

describe('compileQueryValidator', () => {
  it('coerces numbers and applies defaults', () => {
    expect(validate({ limit: '20' })).toEqual({ limit: 20 });
    expect(validate({})).toEqual({ limit: 50 });
  });

  it.each(['Infinity', '-Infinity', '+infinity', '1e999', '-1e400'])('refuses %s, naming the parameter', (value) => {
    expect(detailsOf({ limit: value })).toContainEqual({ path: '/query/limit', message: 'must be a finite number' });
  });

  it('names every bad and unknown parameter', () => {
    expect(detailsOf({ limit: '0', tool: 'toolong', extra: '1' })).toEqual([
      { path: '/query/extra', message: 'is not a known parameter' },
      { path: '/query/limit', message: 'must be >= 1' },
      { path: '/query/tool', message: 'must NOT have more than 5 characters' },
    ]);
  });
});
