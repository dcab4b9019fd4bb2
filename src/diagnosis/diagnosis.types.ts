// The contract between the worker and the pure diagnosis core (see ../shared/taxonomy.md).
// Category and subtype strings are persisted in events, error groups and rollups: renaming one needs a migration.

export const CATEGORIES = ['argument_mismatch', 'out_of_range', 'overflow', 'unknown_tool', 'timeout', 'runtime_error', 'unknown'] as const;
export type Category = (typeof CATEGORIES)[number];

export const SUBTYPES = [
  'missing_argument',
  'unknown_argument',
  'type_mismatch',
  'malformed_arguments',
  'above_maximum',
  'below_minimum',
  'not_in_enum',
  'invalid_format',
] as const;
export type Subtype = (typeof SUBTYPES)[number];

/**
 * Which piece of evidence decided the category. `schema_too_expensive`: the registered schema could not check the
 * arguments within its budget, so the message decided (or nothing did). `model`: no rule explained the failure and the
 * learned fallback model (fallback/fallback.ts) decided, at a confidence of at least its threshold.
 */
export const EVIDENCE_SOURCES = ['schema', 'message', 'none', 'schema_too_expensive', 'model'] as const;
export type EvidenceSource = (typeof EVIDENCE_SOURCES)[number];

export interface ToolError {
  type?: string | null;
  message: string;
  stack?: string | null;
}

export interface DiagnosisInput {
  tool: string;
  /** The arguments as the model produced them; a string when they were not valid JSON. */
  arguments: unknown;
  error: ToolError;
  /** The tool's registered JSON Schema for its arguments, compiled once by the caller (see compileArgumentSchema). */
  schema?: ArgumentSchema | null;
}

export interface ArgumentSchema {
  /** The raw JSON Schema object (properties, required, ...). */
  readonly json: Record<string, unknown>;
  /** Validates arguments within `budgetMs` (by default ARGUMENT_VALIDATION_BUDGET_MS); never throws. */
  readonly validate: (args: unknown, budgetMs?: number) => SchemaCheck;
  /** Memory its compiled patterns hold at most (they live as long as it does), for caches bounded by memory. */
  readonly patternBytes?: number;
}

export type SchemaCheck =
  /**
   * Ajv's errors (allErrors, the first MAX_REPORTED_SCHEMA_ERRORS), empty when the arguments are valid; `unlistedErrors`:
   * how many more there were (or would have been: undeclared names past the reported ones are counted, not checked).
   */
  | { readonly status: 'checked'; readonly errors: readonly AjvLikeError[]; readonly elapsedMs: number; readonly unlistedErrors?: number }
  /** The validation ran out of budget, now or recently, or the schema takes too long to compile. */
  | { readonly status: 'too_expensive' }
  /** The schema cannot be compiled (for instance a pattern the linear-time engine cannot run). */
  | { readonly status: 'unusable' };

export interface AjvLikeError {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message?: string;
}

export interface Diagnosis {
  category: Category;
  subtype: Subtype | null;
  /** JSON Pointer of the offending argument ("/number"), or null when none can be told. */
  argumentPath: string | null;
  evidence: EvidenceSource;
  /** An argument name the tool does not accept (e.g. "numbers"). */
  wrongArgument: string | null;
  /** The declared argument it most likely meant (e.g. "number"). */
  intendedArgument: string | null;
  /** For range and overflow errors: the numeric value that failed. */
  offendingValue: number | null;
  /** True when an array was passed where the schema (or the error) wants a scalar. */
  arrayForScalar: boolean;
  /** With evidence `model`: the model's calibrated confidence (0..1, three decimals) in its category and subtype. */
  modelConfidence?: number;
}
