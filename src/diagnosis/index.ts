// The pure diagnosis core: categorize a failed tool call, group it, and bucket latencies. No I/O, no framework.
export * from './diagnosis.types';
export {
  ARGUMENT_VALIDATION_BUDGET_MS,
  EXPENSIVE_SCHEMA_COOLDOWN_MS,
  MAX_REPORTED_SCHEMA_ERRORS,
  compileArgumentSchema,
} from './argument-schema';
export {
  MAX_CACHED_PATTERN_BYTES,
  MAX_PATTERN_COMPILE_UNITS,
  MAX_PATTERN_LENGTH,
  MAX_PATTERN_PROGRAM_SIZE,
  LinearPatterns,
  checkLinearPattern,
  estimatePatternUnits,
} from './linear-regex';
export {
  MAX_COUNTED_DEPTH,
  MAX_SCHEMA_BRANCHES,
  MAX_SCHEMA_PROGRAM_SIZE,
  TOO_MANY_PATTERN_INSTRUCTIONS,
  measureSchemaCost,
  type SchemaCostProblem,
} from './schema-cost';
export { SCHEMA_COMPILE_BUDGET_MS, SCHEMA_COMPILE_STARVED_RETRIES, compileUserSchema, type UserSchemaDraft } from './user-schema-compiler';
export { diagnose } from './categorizer';
export { MAX_MATCHED_CANDIDATES, MAX_MATCHED_NAME_CHARS, MAX_MATCHED_UNKNOWN_NAMES, matchArgumentName } from '@toolcoach/core';
export { ownValue } from './own-value';
export { computeFingerprint, normalizeMessageTemplate, type FingerprintParts } from './fingerprint';
export { LATENCY_BUCKET_BOUNDS_MS, LATENCY_BUCKET_COUNT, latencyBucketIndex, percentileFromBuckets } from './latency-buckets';
export {
  SUBTYPE_BY_SCHEMA_KEYWORD,
  categoryOfSubtype,
  declaredProperties,
  declaredTypesOf,
  isScalarTypeList,
  undeclaredNames,
} from './schema-evidence';
export {
  MAX_RESULT_FAILURE_MESSAGE_CHARS,
  RESULT_ERROR_TYPE,
  RESULT_FAILURE_RULES,
  findResultFailure,
  type ResultFailure,
  type ResultFailureRule,
} from './result-failure';
export { MAX_UNKNOWN_TEMPLATE_CHARS, maskUnknownMessage } from './unknown-template';
