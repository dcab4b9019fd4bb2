import { ajvFor, toFieldErrors } from '../validation/ajv-factory';
import { ApiError, FieldError } from './api-error';

/** Compiles a query-string schema once; the returned function answers 400 naming each bad parameter. */
export function compileQueryValidator<T>(schema: Record<string, unknown>): (query: unknown) => T {
  const validate = ajvFor('query').compile({ type: 'object', additionalProperties: false, ...schema });
  return (query: unknown) => {
    const copy = { ...(query as Record<string, unknown>) };
    // coercion turns "Infinity" or "1e999" into a number that can pass integer and maximum checks; no parameter of
    // ours is infinite, so any value that is (or coerces to) a non-finite number is refused
    const isValid = validate(copy);
    const infinite = Object.keys(copy).filter((key) => /^[+-]?infinity$/i.test(String(copy[key])) || isNonFiniteNumber(copy[key]));
    if (isValid && infinite.length === 0) return copy as T;
    throw invalidQuery([
      ...toFieldErrors(validate.errors, '/query', 'is not a known parameter'),
      ...infinite.map((key) => ({ path: `/query/${key}`, message: 'must be a finite number' })),
    ]);
  };
}

/** The 400 for bad query parameters, its message naming the first; every route's query problems end here. */
export function invalidQuery(details: FieldError[]): ApiError {
  return new ApiError(400, 'invalid_query', `Invalid query parameter ${details[0].path.replace('/query/', '')}`, { details });
}

function isNonFiniteNumber(value: unknown): boolean {
  return typeof value === 'number' && !Number.isFinite(value);
}
