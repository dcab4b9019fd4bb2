// The registry's wire and domain types. The description view is a persisted contract: every version is stored in
// this shape (tool_versions) and served again byte for byte on `?version=N`.

export type JsonObject = Record<string, unknown>;

export interface WarningEvidence {
  count: number;
  /** ISO-8601; null for a warning written by hand without evidence. */
  firstSeen: string | null;
  lastSeen: string | null;
  exampleEventIds: string[];
  [key: string]: unknown;
}

export type WarningSource = 'manual' | 'auto';
export type WarningStatus = 'active' | 'dismissed';

export interface WarningRecord {
  id: string;
  kind: string;
  text: string;
  evidence: WarningEvidence;
  evidenceKey: string | null;
  source: WarningSource;
  status: WarningStatus;
  dismissedReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ToolRecord {
  id: string;
  name: string;
  description: string;
  parameters: JsonObject;
  metadata: JsonObject | null;
  version: number;
  archivedAt: Date | null;
}

/** A tool with every warning it has (active and dismissed), as read under the tool's row lock. */
export interface ToolState {
  tool: ToolRecord;
  warnings: WarningRecord[];
}

export interface ServedWarning {
  id: string;
  kind: string;
  text: string;
  evidence: WarningEvidence;
  status: 'active';
}

/** GET /v1/tools/:name/description */
export interface DescriptionView {
  name: string;
  version: number;
  description: string;
  baseDescription: string;
  warnings: ServedWarning[];
  parameters: JsonObject;
}

/** One row of tool_versions. */
export interface VersionSnapshot {
  version: number;
  baseDescription: string;
  description: string;
  parameters: JsonObject;
  warnings: ServedWarning[];
}

/** A tool definition after normalizing whichever shape it came in (ours, OpenAI, Anthropic, MCP). */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JsonObject;
  metadata?: JsonObject | null;
}

export const TOOL_FORMATS = ['raw', 'openai', 'anthropic', 'mcp', 'langchain'] as const;
export type ToolFormat = (typeof TOOL_FORMATS)[number];

/** What a canary needs to start: its design, the policy's share of sticky agents (split) and calls a side. */
export interface CanarySettings {
  design: CanaryDesign;
  share: number;
  minCalls: number;
}

/**
 * How a canary's two versions reach callers (docs/rollout.md): `alternating`, every caller gets the canary version
 * after an even number of nightly looks and the previous version after an odd one; `split`, the callers whose sticky id
 * falls below `share` get the canary version, the others the previous one.
 */
export type CanaryDesign = 'alternating' | 'split';
export const CANARY_DESIGNS: readonly CanaryDesign[] = ['alternating', 'split'];

/** A description version tested against `previousVersion` until the nightly decides it. */
export interface RunningCanary extends CanarySettings {
  id: string;
  tool: string;
  /** The first of `warningIds`. */
  warningId: string | null;
  /** Every warning the canary version added, each about a different mistake, each judged on its own. */
  warningIds: string[];
  design: CanaryDesign;
  /** Nightly looks so far; at `maxLooks` the canary is decided whatever the counts. */
  looks: number;
  maxLooks: number;
  previousVersion: number;
  canaryVersion: number;
  startedAt: Date;
  /** The last look's counts and what the canary waits for; null before its first look. */
  state: Record<string, unknown> | null;
}

export type CanaryStatus = 'running' | 'promoted' | 'rolled_back' | 'superseded';

export interface CanaryRecord extends RunningCanary {
  status: CanaryStatus;
  decision: Record<string, unknown> | null;
  decidedAt: Date | null;
}

/** A tool of a registration request, and where its schema is in the request (a JSON Pointer, for error details). */
export interface RegistrationCandidate {
  definition: ToolDefinition;
  parametersPath: string;
}
