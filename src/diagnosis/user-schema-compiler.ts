import Ajv, { type Options, type ValidateFunction } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { LinearPatterns } from './linear-regex';
import { runWithinBudget } from './time-budget';

/**
 * Compiles a user's JSON Schema the one way both registration and validation do, so registration refuses exactly
 * what validation could not run:
 * - patterns on the linear-time engine (linear-regex.ts), compiled into the schema's own LinearPatterns, which the
 *   validate function keeps: a validation never compiles a pattern;
 * - `inlineRefs: false`: Ajv otherwise copies a referenced schema into every place that refers to it, and a 46 KB
 *   schema (1,000 references to one 400-property definition) grew to gigabytes of code and crashed the process;
 * - `allowMatchingProperties`: Ajv's strict check behind it runs each `patternProperties` key on JavaScript's
 *   backtracking engine against the declared names, at compile time;
 * - a fresh Ajv per schema: a compile cut short leaves nothing half-built behind, and the schema's compiled code
 *   and patterns are freed with it (a shared instance keeps every pattern it ever compiled);
 * - a time budget: Ajv's code generation is superlinear in places (an anyOf of 2,000 branches took 3 s);
 * - `ownProperties`: a parameter named `toString` or `constructor` is judged by what the arguments hold, never by
 *   what every object inherits from Object.prototype.
 */

export const SCHEMA_COMPILE_BUDGET_MS = 250;
/** A compile cut off while the process was starved of CPU (see runWithinBudget) is tried again this many times. */
export const SCHEMA_COMPILE_STARVED_RETRIES = 2;

export type UserSchemaDraft = 'draft7' | 'draft2019' | 'draft2020';

export type UserSchemaCompilation =
  | { status: 'compiled'; validate: ValidateFunction }
  /** Ajv refused the schema (strict mode, an unresolvable $ref, a pattern the engine refuses): its message. */
  | { status: 'refused'; message: string }
  | { status: 'too_expensive' };

const AJV_BY_DRAFT = { draft7: Ajv, draft2019: Ajv2019, draft2020: Ajv2020 };

export function compileUserSchema(
  schema: Record<string, unknown>,
  draft: UserSchemaDraft,
  {
    isStrict,
    budgetMs = SCHEMA_COMPILE_BUDGET_MS,
    starvedRetries = SCHEMA_COMPILE_STARVED_RETRIES,
    patterns = new LinearPatterns(),
  }: {
    isStrict: boolean;
    budgetMs?: number;
    starvedRetries?: number;
    /** Patterns compiled already for this schema (by its cost measure); the validate function keeps them. */
    patterns?: LinearPatterns;
  },
): UserSchemaCompilation {
  const options: Options = {
    allErrors: true,
    // ["string", "null"] is how OpenAI's strict mode spells an optional argument; a tuple without minItems is common
    allowUnionTypes: true,
    strict: isStrict,
    strictTuples: false,
    allowMatchingProperties: true,
    inlineRefs: false,
    ownProperties: true,
    // the schema was checked against its meta-schema by the caller, once
    validateSchema: false,
    code: { regExp: patterns.engine },
  };
  try {
    const compiled = runWithinBudget(() => addFormats(new AJV_BY_DRAFT[draft](options)).compile(schema), budgetMs, {
      starvedRetries,
    });
    return compiled.timedOut ? { status: 'too_expensive' } : { status: 'compiled', validate: compiled.value };
  } catch (error) {
    if (error instanceof RangeError) return { status: 'refused', message: 'nests its references too deeply to compile' };
    return { status: 'refused', message: error instanceof Error ? error.message : String(error) };
  }
}
