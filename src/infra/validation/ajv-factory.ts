import Ajv, { type ErrorObject, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FieldError } from '../http/api-error';

// The one place our own schemas (request bodies, queries, env, queue payloads) get an Ajv. Each purpose is a preset
// rather than options spelled at each call site, so two routes cannot disagree on what "strict" or "coerce" means.
// Users' tool schemas are not ours: they are compiled by diagnosis/user-schema-compiler with the options of their draft.

export type AjvPurpose =
  /** JSON bodies and internal payloads: strict, every error reported, no coercion, no defaults filled in. */
  | 'body'
  /** Query strings: values arrive as text, so types are coerced and defaults applied. */
  | 'query'
  /** Environment variables: every bad variable listed at boot; values are text and are checked as text, not coerced. */
  | 'env';

const OPTIONS: Record<AjvPurpose, Options> = {
  // strictRequired is off: an if/then may require a property declared at the top level, which strict mode cannot see.
  body: { allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true },
  query: { allErrors: true, strict: true, coerceTypes: true, useDefaults: true },
  env: { allErrors: true, strict: true },
};

const FORMATS = ['date-time', 'uuid'] as const;

const instances = new Map<AjvPurpose, Ajv>();

/** The shared Ajv of a purpose; schemas compiled on it are cached by Ajv, so compile once at module load. */
export function ajvFor(purpose: AjvPurpose): Ajv {
  let ajv = instances.get(purpose);
  if (!ajv) {
    ajv = new Ajv(OPTIONS[purpose]);
    addFormats(ajv, [...FORMATS]);
    instances.set(purpose, ajv);
  }
  return ajv;
}

/**
 * Maps one Ajv error to our `{path, message}`, its path rooted at `prefix` (`/events/3`, `/query`, ''), naming the
 * missing or unknown field itself rather than the object that holds it.
 */
export function toFieldError(error: ErrorObject, prefix: string, unknownFieldMessage = 'is not a known field'): FieldError {
  const path = prefix + error.instancePath;
  switch (error.keyword) {
    case 'required':
      return { path: `${path}/${String(error.params.missingProperty)}`, message: 'is required' };
    case 'additionalProperties':
      return { path: `${path}/${String(error.params.additionalProperty)}`, message: unknownFieldMessage };
    case 'enum':
      return { path, message: `must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    default:
      return { path, message: error.message ?? 'is invalid' };
  }
}

/** Every error of a failed validation as field errors, without the `if` wrapper errors that only repeat a `then`. */
export function toFieldErrors(
  errors: readonly ErrorObject[] | null | undefined,
  prefix: string,
  unknownFieldMessage?: string,
): FieldError[] {
  return (errors ?? []).filter((error) => error.keyword !== 'if').map((error) => toFieldError(error, prefix, unknownFieldMessage));
}
