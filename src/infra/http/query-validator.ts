import Ajv, { ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { ApiError } from './api-error';

const ajv = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true, strict: true });
addFormats(ajv, ['date-time', 'uuid']);

/** Compiles a query-string schema once; the returned function answers 400 naming each bad parameter. */
export function compileQueryValidator<T>(schema: Record<string, unknown>): (query: unknown) => T {
  const validate = ajv.compile({ type: 'object', additionalProperties: false, ...schema });
  return (query: unknown) => {
    const copy = { ...(query as Record<string, unknown>) };
    // coercion turns "Infinity" or "1e999" into a number that can pass integer and maximum checks; no parameter of
    // ours is infinite, so any value that is (or coerces to) a non-finite number is refused
    const isValid = validate(copy);
    const infinite = Object.keys(copy).filter((key) => /^[+-]?infinity$/i.test(String(copy[key])) || isNonFiniteNumber(copy[key]));
    if (isValid && infinite.length === 0) return copy as T;
    const details = [
      ...(validate.errors ?? []).map((error) => ({ path: queryPath(error), message: messageOf(error) })),
      ...infinite.map((key) => ({ path: `/query/${key}`, message: 'must be a finite number' })),
    ];
    throw new ApiError(400, 'invalid_query', `Invalid query parameter ${details[0].path.replace('/query/', '')}`, { details });
  };
}

function isNonFiniteNumber(value: unknown): boolean {
  return typeof value === 'number' && !Number.isFinite(value);
}

function queryPath(error: ErrorObject): string {
  if (error.keyword === 'additionalProperties') return `/query/${String(error.params.additionalProperty)}`;
  return `/query${error.instancePath}`;
}

function messageOf(error: ErrorObject): string {
  if (error.keyword === 'additionalProperties') return 'is not a known parameter';
  if (error.keyword === 'enum') return `must be one of ${(error.params.allowedValues as unknown[]).join(', ')}`;
  return error.message ?? 'is invalid';
}
