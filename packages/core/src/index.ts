// @toolcoach/core: what the server, the SDK and the gateway share. Pure: no I/O, no dependencies, imports only itself.
export * from './wire';
export {
  MAX_MATCHED_CANDIDATES,
  MAX_MATCHED_NAME_CHARS,
  MAX_MATCHED_UNKNOWN_NAMES,
  damerauLevenshtein,
  matchArgumentName,
  intendedArgumentOf,
  singularOf,
  type StrayContext,
} from './argument-names';
export {
  MAX_NAME_LENGTH,
  MAX_PLAIN_STRING_LENGTH,
  UntrustedFragments,
  isPlainName,
  isPlainValue,
  quoteName,
  quoteValue,
} from './untrusted-text';
export { REDACTED, redactSecretsInText, type RedactionCases, type SecretKeyTest } from './secrets-in-text';
export * from './schema-properties';
export * from './argument-findings';
export * from './learned-limits';
export * from './guard-verdict';
export * from './guard-conformance';
