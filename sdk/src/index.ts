export { Toolcoach, SDK_NAME, SDK_VERSION } from './toolcoach';
export { resolveConnection } from './connection-settings';
export type { ConnectionSettings } from './connection-settings';
export type { ToolcoachOptions, DescriptionSource, ValidationOutcome, LoadToolsOptions, GuardOutcome } from './toolcoach';
export { ArgumentGuard } from './argument-guard';
export type { ArgumentAnswer, GuardVerdict, Correction, CorrectionKind } from './argument-guard';
export type { ReporterStats, FlushResult } from './reporter';
export type { Logger } from './logger';
export { isSecretKeyByDefault, redactSecrets, redactSecretsInText, REDACTED } from './redaction';
export type { SecretKeyMatcher } from './redaction';
export type { ToolLike } from './tool-definition';
export type {
  ToolEvent,
  ToolEventError,
  ToolDescription,
  ToolDefinition,
  ValidationResult,
  ValidationIssue,
  ClientInfo,
  GuardMode,
  GuardSection,
} from '@toolcoach/core';
