// The pure diagnosis core: categorize a failed tool call, group it, and bucket latencies. No I/O, no framework.
export * from './diagnosis.types';
export { compileArgumentSchema } from './argument-schema';
export { diagnose } from './categorizer';
export { matchArgumentName } from './argument-name-matcher';
export { ownValue } from './own-value';
export { computeFingerprint, normalizeMessageTemplate, type FingerprintParts } from './fingerprint';
export { LATENCY_BUCKET_BOUNDS_MS, LATENCY_BUCKET_COUNT, latencyBucketIndex, percentileFromBuckets } from './latency-buckets';
export { SUBTYPE_BY_SCHEMA_KEYWORD, categoryOfSubtype, declaredProperties, declaredTypesOf, isScalarTypeList } from './schema-evidence';
