import { escapePointerSegment } from '@toolcoach/core';

/**
 * What one registration request (PUT /v1/tools/:name or POST /v1/tools:bulk) may cost. Checking a user's schema
 * compiles its patterns and generates Ajv code, both on the event loop: a 66 KB request of patterns held the process
 * for 12.6 s. So every piece of that work is counted before it runs, in units of about 5 µs of CPU on our 2-core
 * reference machine (one unit per estimated regex instruction), accepted or refused alike, and a request whose work
 * would pass the budget stops there: what was not checked is named in a 422 `registration_too_expensive`. A wall-clock
 * deadline bounds what the units do not foresee (a machine slower than ours, a starved process). Pure: no clock of its
 * own, no I/O.
 */

/** What a unit stands for, measured on the reference machine. */
const MICROSECONDS_PER_UNIT = 5;
/** Units one request may spend, ~20 s of CPU: an agent's whole tool list (500 tools of 20 patterned properties, ~3 M) fits. */
export const REGISTRATION_WORK_UNITS = 4_000_000;
/** How long one request may check schemas, yields to other requests included; past it the rest is refused. */
export const REGISTRATION_DEADLINE_MS = 30_000;
/** A fresh Ajv with formats and its code generation for an empty schema: ~7 ms measured. */
export const SCHEMA_BASE_UNITS = 1_400;
/** Ajv generates code per subschema, ~0.5 ms each with allErrors (1,500 properties took 825 ms). */
export const SCHEMA_NODE_UNITS = 100;
/**
 * Ajv generates one schema's code in one piece the event loop cannot interrupt: a schema whose code would cost more
 * (about 140 subschemas, ~80 ms) is refused before compiling, counted rather than timed, so a busy machine never
 * refuses a schema a quiet one accepts. The compile's own watchdog (SCHEMA_COMPILE_BUDGET_MS) stays as a backstop.
 */
export const MAX_SCHEMA_COMPILE_UNITS = 16_000;
/** Reading a schema's shape (size, depth, references, meta-schema): per KB of its JSON, measured well under 1 ms. */
const SCHEMA_UNITS_PER_KB = 20;

export type Spent = { reason: 'units' | 'deadline' };

export class RegistrationBudget {
  private spentUnits = 0;

  constructor(
    private readonly nowMs: () => number,
    private readonly deadlineMs: number = nowMs() + REGISTRATION_DEADLINE_MS,
    private readonly maxUnits: number = REGISTRATION_WORK_UNITS,
  ) {}

  get units(): number {
    return this.spentUnits;
  }

  /** Counts `units` of work about to run; null when it may run, else why not (nothing is counted then). */
  charge(units: number): Spent | null {
    if (this.nowMs() >= this.deadlineMs) return { reason: 'deadline' };
    if (this.spentUnits + units > this.maxUnits) return { reason: 'units' };
    this.spentUnits += units;
    return null;
  }

  describe(spent: Spent): string {
    return spent.reason === 'units'
      ? `this request's schema checks would pass ${REGISTRATION_WORK_UNITS} work units (about ${(REGISTRATION_WORK_UNITS * MICROSECONDS_PER_UNIT) / 1e6} s of CPU)`
      : `this request's schema checks ran past ${REGISTRATION_DEADLINE_MS / 1000} s`;
  }
}

/** Reading a schema's shape (size, depth, references): linear in its JSON. */
export function shapeCheckUnits(jsonBytes: number): number {
  return Math.ceil(jsonBytes / 1024) * SCHEMA_UNITS_PER_KB;
}

/** Measuring a schema's cost and Ajv's code for it, besides its patterns: a fresh Ajv, and code for each subschema. */
export function schemaCompileUnits(schema: unknown): number {
  return SCHEMA_BASE_UNITS + SCHEMA_NODE_UNITS * countSubschemas(schema);
}

/** Objects in the schema, each a subschema Ajv may generate code for (data under `enum`/`const` too: the cautious side). */
function countSubschemas(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let count = Array.isArray(value) ? 0 : 1;
  for (const inner of Object.values(value)) count += countSubschemas(inner);
  return count;
}

export interface SchemaPattern {
  pattern: string;
  /** JSON Pointer of the pattern in the request. */
  path: string;
}

/**
 * Every string a schema compiles as a pattern (`pattern` values, `patternProperties` keys), in document order, with
 * where it is; strings that only look like one (data under `enum`) are included: checking them is charged, never free.
 */
export function patternsOf(schema: unknown, path: string): SchemaPattern[] {
  const found: SchemaPattern[] = [];
  const walk = (value: unknown, at: string) => {
    if (typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) return value.forEach((inner, index) => walk(inner, `${at}/${index}`));
    for (const [key, inner] of Object.entries(value)) {
      const here = `${at}/${escapePointerSegment(key)}`;
      if (key === 'pattern' && typeof inner === 'string') found.push({ pattern: inner, path: here });
      if (key === 'patternProperties' && typeof inner === 'object' && inner !== null && !Array.isArray(inner)) {
        for (const name of Object.keys(inner)) found.push({ pattern: name, path: `${here}/${escapePointerSegment(name)}` });
      }
      walk(inner, here);
    }
  };
  walk(schema, path);
  return found;
}
