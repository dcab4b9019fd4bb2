export { Toolcoach, SDK_NAME, SDK_VERSION } from './toolcoach';
export type { ToolcoachOptions, DescriptionSource, ValidationOutcome } from './toolcoach';
export type { ReporterStats, FlushResult } from './reporter';
export type { Logger } from './logger';
export { isSecretKeyByDefault, redactSecrets, redactSecretsInText, REDACTED } from './redaction';
export type { SecretKeyMatcher } from './redaction';
export type { ToolLike } from './tool-definition';
export type { ToolEvent, ToolEventError, ToolDescription, ToolDefinition, ValidationResult, ValidationIssue, ClientInfo } from './wire';
