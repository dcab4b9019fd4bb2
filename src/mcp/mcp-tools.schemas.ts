import { GROUP_STATUSES } from '../dashboard/error-group-view';
import type { JsonObjectSchema } from './mcp-tool';

// The input and output schemas of the MCP tools: listed by tools/list, the inputs checked with Ajv before a tool runs,
// the outputs checked against real answers by the SDK's MCP client in test/e2e/mcp-server.e2e-spec.ts.

const INSTANT = { type: 'string', maxLength: 40, description: 'an ISO date-time or YYYY-MM-DD' } as const;
const CURSOR = { type: 'string', minLength: 1, maxLength: 400, description: 'nextCursor of the previous answer' } as const;
const UUID = { type: 'string', format: 'uuid' } as const;
const TOOL_NAME = { type: 'string', minLength: 1, maxLength: 200, description: 'the tool name as registered' } as const;
const DATE_TIME = { type: 'string' } as const;
const NULLABLE_STRING = { type: ['string', 'null'] } as const;
const NULLABLE_INTEGER = { type: ['integer', 'null'] } as const;
const NULLABLE_NUMBER = { type: ['number', 'null'] } as const;
/** Any JSON an event or a rule produced, or a `{preview, truncated}` of it when long. */
const QUOTED_JSON = { description: 'the JSON as stored, or {"preview": the start of its JSON text, "truncated": true} when long' };

const input = (properties: Record<string, unknown>, required: string[] = []): JsonObjectSchema => ({
  type: 'object',
  additionalProperties: false,
  properties,
  required,
});

export const FAILING_TOOLS_INPUT = input({
  from: { ...INSTANT, description: 'start of the period (default: 7 days before `to`)' },
  to: { ...INSTANT, description: 'end of the period (default: now)' },
  limit: { type: 'integer', minimum: 1, maximum: 20, default: 10, description: 'tools per answer' },
  cursor: CURSOR,
  groupsPerTool: { type: 'integer', minimum: 1, maximum: 5, default: 3 },
  samplesPerGroup: { type: 'integer', minimum: 0, maximum: 3, default: 1 },
});

export const TOOL_DETAILS_INPUT = input(
  {
    tool: TOOL_NAME,
    versions: { type: 'integer', minimum: 1, maximum: 10, default: 3, description: 'latest versions to list' },
    canaries: { type: 'integer', minimum: 1, maximum: 5, default: 3, description: 'latest canaries to list' },
  },
  ['tool'],
);

export const RECOMMENDATIONS_INPUT = input({
  status: { enum: ['proposed', 'applied', 'dismissed'] },
  tool: TOOL_NAME,
  limit: { type: 'integer', minimum: 1, maximum: 20, default: 5 },
  cursor: { ...UUID, description: 'nextCursor of the previous answer' },
});

export const SESSION_EVENTS_INPUT = input(
  {
    session: { type: 'string', minLength: 1, maxLength: 200, description: 'the sessionId the events reported' },
    limit: { type: 'integer', minimum: 1, maximum: 50, default: 20 },
    cursor: CURSOR,
  },
  ['session'],
);

/** The write tools take the id of what they change. */
export const ID_INPUT = (what: string) => input({ id: { ...UUID, description: `the ${what}'s id` } }, ['id']);

const object = (properties: Record<string, unknown>) => ({
  type: 'object',
  required: Object.keys(properties),
  properties,
});

export const RECOMMENDATION_OUTPUT = object({
  id: UUID,
  tool: { type: 'string' },
  kind: { type: 'string' },
  status: { enum: ['proposed', 'applied', 'dismissed'] },
  text: { type: 'string' },
  confidence: { type: 'number' },
  evidence: QUOTED_JSON,
  waitingFor: { type: ['object', 'null'], description: 'what a proposed recommendation waits for' },
  warningId: NULLABLE_STRING,
  appliedVersion: { ...NULLABLE_INTEGER, description: 'the description version applying it made' },
  appliedAt: NULLABLE_STRING,
  effect: { ...QUOTED_JSON, description: 'the measured effect of the applied warning on the error rate, or null' },
});

const SIDE = object({ version: { type: 'integer' }, calls: { type: 'integer' }, mistakes: { type: 'integer' } });

export const CANARY_OUTPUT = object({
  id: UUID,
  tool: { type: 'string' },
  status: { type: 'string', description: 'running, promoted or rolled_back' },
  design: { type: 'string' },
  previousVersion: { type: 'integer' },
  canaryVersion: { type: 'integer' },
  share: { type: 'number' },
  minCalls: { type: 'integer' },
  looks: { type: 'integer' },
  maxLooks: { type: 'integer' },
  startedAt: DATE_TIME,
  decidedAt: NULLABLE_STRING,
  decision: QUOTED_JSON,
  sides: {
    oneOf: [{ type: 'null' }, object({ counted: { type: 'string' }, canary: SIDE, previous: SIDE })],
    description: 'failed calls per side so far, for a running canary',
  },
});

export const EVENT_OUTPUT = object({
  id: { type: 'string' },
  tool: { type: 'string' },
  status: { enum: ['success', 'error'] },
  occurredAt: DATE_TIME,
  descriptionVersion: NULLABLE_INTEGER,
  arguments: QUOTED_JSON,
  error: { oneOf: [{ type: 'null' }, object({ type: NULLABLE_STRING, message: NULLABLE_STRING })] },
  category: NULLABLE_STRING,
  subtype: NULLABLE_STRING,
  argumentPath: NULLABLE_STRING,
  durationMs: NULLABLE_NUMBER,
  agent: NULLABLE_STRING,
  model: NULLABLE_STRING,
});

const ERROR_GROUP_OUTPUT = object({
  id: UUID,
  category: { type: 'string' },
  subtype: NULLABLE_STRING,
  argumentPath: NULLABLE_STRING,
  messageTemplate: NULLABLE_STRING,
  count: { type: 'integer' },
  firstSeen: DATE_TIME,
  lastSeen: DATE_TIME,
  status: { enum: [...GROUP_STATUSES] },
  samples: {
    type: 'array',
    items: object({
      eventId: { type: 'string' },
      occurredAt: DATE_TIME,
      descriptionVersion: NULLABLE_INTEGER,
      arguments: QUOTED_JSON,
      error: NULLABLE_STRING,
    }),
  },
});

/** Every answer that lists: `truncated` is true when items were left out to fit the answer budget. */
const PAGE_FIELDS = {
  nextCursor: { ...NULLABLE_STRING, description: 'pass as cursor for the next items; null at the end' },
  truncated: { type: 'boolean', description: 'items were left out to keep the answer within 16 KB; nextCursor continues' },
};

export function pageOutput(listKey: string, item: unknown, extra: Record<string, unknown> = {}): JsonObjectSchema {
  return { ...object({ ...extra, [listKey]: { type: 'array', items: item }, ...PAGE_FIELDS }), type: 'object' };
}

export const FAILING_TOOLS_OUTPUT = pageOutput(
  'tools',
  object({
    tool: { type: 'string' },
    calls: { type: 'integer' },
    errors: { type: 'integer' },
    successRate: NULLABLE_NUMBER,
    errorsByCategory: { type: 'object', additionalProperties: { type: 'integer' } },
    errorGroups: { type: 'array', items: ERROR_GROUP_OUTPUT },
  }),
  { from: DATE_TIME, to: DATE_TIME },
);

export const TOOL_DETAILS_OUTPUT: JsonObjectSchema = {
  ...object({
    tool: { type: 'string' },
    live: object({
      version: { type: 'integer' },
      description: { type: 'string', description: 'what agents are served now, warnings folded in' },
      baseDescription: { type: 'string', description: "the tool's registered description" },
      parameters: QUOTED_JSON,
    }),
    versions: {
      type: 'array',
      items: object({
        version: { type: 'integer' },
        createdAt: DATE_TIME,
        calls: { type: 'integer' },
        errors: { type: 'integer' },
        errorRate: NULLABLE_NUMBER,
        canaryStatus: NULLABLE_STRING,
      }),
    },
    warnings: {
      type: 'array',
      items: object({
        id: UUID,
        kind: { type: 'string' },
        status: { type: 'string' },
        source: { type: 'string' },
        text: { type: 'string' },
        evidence: QUOTED_JSON,
        dismissedReason: NULLABLE_STRING,
        createdAt: DATE_TIME,
      }),
    },
    isWarningsTruncated: { type: 'boolean' },
    canaries: { type: 'array', items: CANARY_OUTPUT },
  }),
  type: 'object',
};

export const RECOMMENDATION_CHANGE_OUTPUT: JsonObjectSchema = { ...object({ recommendation: RECOMMENDATION_OUTPUT }), type: 'object' };
export const CANARY_CHANGE_OUTPUT: JsonObjectSchema = { ...object({ canary: CANARY_OUTPUT }), type: 'object' };
