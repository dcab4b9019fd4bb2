// What the SDKs and the gateway send and receive over HTTP (docs/api.md "The event format", the registry routes): one
// source, bundled into @toolcoach/sdk, that the server's guard section is typed by too.

/** One tool call as POST /v1/events accepts it. Unknown fields are refused by the server, so nothing else goes here. */
export interface ToolEvent {
  id?: string;
  tool: string;
  status: 'success' | 'error';
  /** The arguments object, or the raw string when the model's arguments were not valid JSON. */
  arguments?: unknown;
  result?: unknown;
  error?: ToolEventError;
  durationMs?: number;
  occurredAt?: string;
  agent?: string;
  model?: string;
  framework?: string;
  sessionId?: string;
  traceId?: string;
  runId?: string;
  toolCallId?: string;
  descriptionVersion?: number;
  prompt?: string;
  metadata?: Record<string, unknown>;
  /** The guard corrected the arguments before the tool ran: as the model sent them, as the tool got them, and how. */
  correction?: { original: unknown; corrected: unknown; kinds: string[] };
  /** The guard refused the call: the tool never ran. */
  prevented?: boolean;
}

export interface ToolEventError {
  type?: string;
  message: string;
  stack?: string;
}

/** Who sent a batch and how many events it had to drop since the last delivered batch. */
export interface ClientInfo {
  sdk: string;
  version: string;
  dropped: number;
}

export interface EventBatchBody {
  events: ToolEvent[];
  client: ClientInfo;
}

/** A tool as the registry stores it: name, description and the JSON Schema of its arguments. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** GET /v1/tools/:name/description, and one item of GET /v1/tools?format=raw. */
export interface ToolDescription {
  name: string;
  version: number;
  /** The base description with the learned warnings appended: what the agent should see. */
  description: string;
  baseDescription: string;
  warnings: unknown[];
  parameters?: Record<string, unknown> | null;
  /** Served with the raw format and the description route: what the guard checks a call against. */
  guard?: GuardSection;
}

/** What the SDK's guard does with invalid arguments (the project's policy, GET/PUT /v1/guard/policy). */
export type GuardMode = 'off' | 'report' | 'correct' | 'strict';

/** A tool's `guard` section: its schema is the item's `parameters`; renames and limits were learned from its calls. */
export interface GuardSection {
  version: number;
  policy: GuardMode;
  schema: 'parameters';
  renames: Array<{ wrong: string; intended: string; count: number }>;
  limits: Array<{ path: string; bound: 'upper' | 'lower'; value: number; isInclusive: boolean; reason: string; evidenceCount: number }>;
}

export interface ValidationIssue {
  category: string;
  subtype: string | null;
  path: string | null;
  message: string;
}

/** POST /v1/tools/:name/validate. */
export interface ValidationResult {
  valid: boolean;
  errors: ValidationIssue[];
  suggestion?: unknown;
  /** False when the server's schema could not check the arguments (too expensive within its budget, or unusable). */
  checked?: boolean;
  /** Why the arguments were not checked. */
  reason?: string | null;
  /** Only when the server left something out to keep the call's work bounded (names past its limit, errors past 100). */
  incomplete?: string;
}
