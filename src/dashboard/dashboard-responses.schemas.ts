import { CATEGORIES, EVIDENCE_SOURCES, RESULT_FAILURE_RULES, SUBTYPES } from '../diagnosis';
import {
  ANY_JSON,
  COUNTS,
  DATE_TIME,
  NULLABLE_INTEGER,
  NULLABLE_NUMBER,
  NULLABLE_STRING,
  pageOf,
} from '../infra/http/openapi/response.schemas';
import { GROUP_STATUSES } from './error-group-view';
import { CANARY_RESPONSE } from '../rollout/rollout.schemas';

// What the dashboard routes answer; test/e2e/openapi.e2e-spec.ts checks a real answer of each against these.

const nullableEnum = (values: readonly string[]) => ({ type: 'string', nullable: true, enum: [...values, null] });
const closedObject = (properties: Record<string, object>) =>
  ({ type: 'object', additionalProperties: false, required: Object.keys(properties), properties }) as const;

const RANGE = {
  from: { ...DATE_TIME, description: 'start of the first bucket' },
  to: { ...DATE_TIME, description: 'end of the last bucket (exclusive)' },
  bucket: { type: 'string', enum: ['hour', 'day'] },
};

const USAGE_TOTALS = {
  calls: { type: 'integer', minimum: 0 },
  errors: { type: 'integer', minimum: 0 },
  successRate: { ...NULLABLE_NUMBER, description: 'successes / calls, null without calls' },
  errorsByCategory: { ...COUNTS, description: '{"overflow": 3, ...}' },
  latencyP50Ms: NULLABLE_NUMBER,
  latencyP95Ms: NULLABLE_NUMBER,
};

const SERIES = {
  type: 'array',
  items: closedObject({
    start: DATE_TIME,
    calls: USAGE_TOTALS.calls,
    errors: USAGE_TOTALS.errors,
    successRate: NULLABLE_NUMBER,
    errorsByCategory: COUNTS,
  }),
};

const TOOL_ROW = closedObject({ tool: { type: 'string' }, ...USAGE_TOTALS });

export const ERROR_GROUP_RESPONSE = closedObject({
  id: { type: 'string', format: 'uuid' },
  tool: { type: 'string' },
  category: { type: 'string', enum: [...CATEGORIES] },
  subtype: nullableEnum(SUBTYPES),
  argumentPath: NULLABLE_STRING,
  messageTemplate: { type: 'string' },
  count: { type: 'integer', minimum: 1, description: 'occurrences since the group was first seen' },
  firstSeen: DATE_TIME,
  lastSeen: DATE_TIME,
  status: { type: 'string', enum: [...GROUP_STATUSES] },
  intendedArgument: NULLABLE_STRING,
  arrayForScalarCount: { type: 'integer', minimum: 0 },
  minOffendingValue: NULLABLE_NUMBER,
  maxOffendingValue: NULLABLE_NUMBER,
});

export const OVERVIEW_RESPONSE = closedObject({
  ...RANGE,
  totals: closedObject(USAGE_TOTALS),
  previous: {
    ...closedObject({ from: DATE_TIME, to: DATE_TIME, bucket: RANGE.bucket, ...USAGE_TOTALS }),
    description: 'the same figures over the period of the same length right before',
  },
  trend: closedObject({
    callsChange: { ...NULLABLE_NUMBER, description: 'relative: 0.1 is 10% more calls' },
    errorsChange: NULLABLE_NUMBER,
    successRateChange: { ...NULLABLE_NUMBER, description: 'absolute: 0.02 is two points better' },
  }),
  topFailingTools: { type: 'array', items: TOOL_ROW },
  topErrorGroups: { type: 'array', items: ERROR_GROUP_RESPONSE },
  series: SERIES,
});

export const TOOLS_STATS_RESPONSE = pageOf(TOOL_ROW, {
  from: DATE_TIME,
  to: DATE_TIME,
  bucket: { type: 'string', enum: ['day'] },
  sort: { type: 'string' },
});

export const DIMENSION_STATS_RESPONSE = pageOf(
  closedObject({
    name: { ...NULLABLE_STRING, description: 'the agent or model; null for the calls that named none' },
    calls: USAGE_TOTALS.calls,
    errors: USAGE_TOTALS.errors,
    successRate: USAGE_TOTALS.successRate,
    errorsByCategory: USAGE_TOTALS.errorsByCategory,
  }),
  { from: DATE_TIME, to: DATE_TIME, tool: { ...NULLABLE_STRING, description: 'the tool filter, or null' } },
);

const GUARD_COUNTS = {
  corrected: { type: 'integer', minimum: 0, description: 'calls the guard corrected before the tool ran' },
  prevented: { type: 'integer', minimum: 0, description: 'calls the guard refused: the tool never ran' },
  byKind: { ...COUNTS, description: 'corrected calls per kind of correction (rename, unwrap_array, numeric_string)' },
};
export const GUARD_STATS_RESPONSE = closedObject({
  tool: { type: 'string' },
  ...RANGE,
  totals: closedObject(GUARD_COUNTS),
  series: {
    type: 'array',
    items: closedObject({ day: DATE_TIME, ...GUARD_COUNTS }),
    description: 'only days with a correction or a prevented call',
  },
});

export const TOOL_STATS_RESPONSE = closedObject({ tool: { type: 'string' }, ...RANGE, totals: closedObject(USAGE_TOTALS), series: SERIES });

export const ERROR_GROUPS_RESPONSE = pageOf(ERROR_GROUP_RESPONSE);

const SAMPLE = closedObject({
  id: { type: 'string' },
  occurredAt: DATE_TIME,
  agent: NULLABLE_STRING,
  model: NULLABLE_STRING,
  descriptionVersion: NULLABLE_INTEGER,
  arguments: ANY_JSON,
  error: { ...closedObject({ type: NULLABLE_STRING, message: { type: 'string' } }), nullable: true },
  wrongArgument: NULLABLE_STRING,
  intendedArgument: NULLABLE_STRING,
  offendingValue: NULLABLE_NUMBER,
});

export const ERROR_GROUP_DETAIL_RESPONSE = closedObject({
  ...ERROR_GROUP_RESPONSE.properties,
  samples: { type: 'array', items: SAMPLE },
  failedArguments: {
    type: 'array',
    description: "each sample's value at the group's argument path ('' and all arguments when there is none)",
    items: closedObject({ eventId: { type: 'string' }, path: { type: 'string' }, value: ANY_JSON }),
  },
});

const NULLABLE_COUNT = { type: 'integer', minimum: 0, nullable: true } as const;

/** What a version costs and how sessions used it (docs/description-cost.md). */
const VERSION_COST = {
  descriptionTokens: {
    ...NULLABLE_COUNT,
    description: 'o200k_base tokens of the served description (null: made before tokens were counted)',
  },
  warningTokens: { ...NULLABLE_COUNT, description: 'of those, the tokens the warnings block adds to the base description' },
  sessions: { type: 'integer', minimum: 0, description: 'sessions that called the tool at this version (events with a session id)' },
  callsPerSession: { ...NULLABLE_NUMBER, description: "the tool's calls per session" },
  stepsPerSession: { ...NULLABLE_NUMBER, description: 'the calls of any tool per session: the steps its sessions took' },
  repeatedCalls: { type: 'integer', minimum: 0, description: 'identical calls in one session beyond the second (successful or not)' },
  repeatsPerSession: NULLABLE_NUMBER,
} as const;

const VERSION = closedObject({
  version: { type: 'integer', minimum: 1 },
  baseDescription: { type: 'string' },
  description: { type: 'string' },
  warnings: {
    type: 'array',
    description: 'the warnings active in this version, as served then',
    items: {
      type: 'object',
      required: ['id', 'kind', 'text'],
      properties: { id: { type: 'string' }, kind: { type: 'string' }, text: { type: 'string' } },
    },
  },
  createdAt: DATE_TIME,
  calls: { type: 'integer', minimum: 0, description: 'calls that reported this description version' },
  errors: { type: 'integer', minimum: 0 },
  errorRate: NULLABLE_NUMBER,
  rollout: { ...CANARY_RESPONSE, nullable: true, description: 'the canary this version started as (docs/rollout.md), or null' },
  ...VERSION_COST,
});

export const VERSION_HISTORY_RESPONSE = pageOf(VERSION);

const STORED_ERROR = closedObject({ type: NULLABLE_STRING, message: { type: 'string' }, stack: NULLABLE_STRING });

/** One stored event with the worker's diagnosis; every field is present, null when the event did not carry it. */
export const STORED_EVENT_RESPONSE = closedObject({
  id: { type: 'string' },
  tool: { type: 'string' },
  status: { type: 'string', enum: ['success', 'error'] },
  arguments: ANY_JSON,
  result: ANY_JSON,
  error: { ...STORED_ERROR, nullable: true },
  durationMs: NULLABLE_NUMBER,
  occurredAt: DATE_TIME,
  receivedAt: DATE_TIME,
  storedAt: DATE_TIME,
  agent: NULLABLE_STRING,
  model: NULLABLE_STRING,
  framework: NULLABLE_STRING,
  sessionId: NULLABLE_STRING,
  traceId: NULLABLE_STRING,
  runId: NULLABLE_STRING,
  toolCallId: NULLABLE_STRING,
  descriptionVersion: NULLABLE_INTEGER,
  prompt: NULLABLE_STRING,
  metadata: { type: 'object', nullable: true },
  category: nullableEnum(CATEGORIES),
  subtype: nullableEnum(SUBTYPES),
  argumentPath: NULLABLE_STRING,
  fingerprint: NULLABLE_STRING,
  errorGroupId: { ...NULLABLE_STRING, format: 'uuid' },
  evidence: {
    ...nullableEnum([...EVIDENCE_SOURCES, 'result']),
    description:
      'which piece of evidence decided the category; schema_too_expensive: the schema could not check the arguments within ' +
      'its budget, so the message decided; model: no rule explained the failure and the learned fallback model decided ' +
      '(docs/categorization.md); result: a reported success whose result says it failed (resultRule)',
  },
  wrongArgument: NULLABLE_STRING,
  intendedArgument: NULLABLE_STRING,
  offendingValue: NULLABLE_NUMBER,
  arrayForScalar: { type: 'boolean' },
  correction: {
    ...closedObject({
      original: ANY_JSON,
      corrected: ANY_JSON,
      kinds: { type: 'array', items: { type: 'string' }, description: 'rename, unwrap_array, numeric_string' },
    }),
    nullable: true,
    description:
      "what an SDK's guard changed before the tool ran (the arguments as the model sent them, as the tool got them); null when nothing",
  },
  prevented: { type: 'boolean', description: "true when an SDK's guard refused the call: the tool never ran" },
  resultRule: {
    ...nullableEnum(RESULT_FAILURE_RULES),
    description:
      'the rule that read this call, reported as a success, as a failure from its result (docs/result-failures.md); null otherwise',
  },
});

export const STORED_EVENTS_RESPONSE = pageOf(STORED_EVENT_RESPONSE);

/** One line of GET /v1/events/export. */
export const EXPORT_LINE_RESPONSE = closedObject({
  id: { type: 'string' },
  occurredAt: DATE_TIME,
  tool: { type: 'string' },
  schemaVersion: { ...NULLABLE_INTEGER, description: 'the description version the agent reported using' },
  agent: NULLABLE_STRING,
  model: NULLABLE_STRING,
  arguments: ANY_JSON,
  status: { type: 'string', enum: ['success', 'error'] },
  error: { ...closedObject({ type: NULLABLE_STRING, message: { type: 'string' } }), nullable: true },
  category: nullableEnum(CATEGORIES),
  subtype: nullableEnum(SUBTYPES),
  argumentPath: NULLABLE_STRING,
  fix: {
    ...closedObject({ warningText: { type: 'string' } }),
    nullable: true,
    description: "the tool's active warning about this argument path, as agents are told now; null when none",
  },
});

/** GET /v1/description-cost: each active tool's current version in tokens, and the project's sums. */
export const DESCRIPTION_COST_RESPONSE = pageOf(
  closedObject({
    tool: { type: 'string' },
    version: { type: 'integer', minimum: 1, description: "the tool's current version" },
    descriptionTokens: VERSION_COST.descriptionTokens,
    warningTokens: VERSION_COST.warningTokens,
    warnings: { type: 'integer', minimum: 0, description: 'warnings in the current version' },
  }),
  {
    project: closedObject({
      tools: { type: 'integer', minimum: 0, description: 'active tools' },
      descriptionTokens: { type: 'integer', minimum: 0, description: "the current versions' tokens, summed" },
      warningTokens: { type: 'integer', minimum: 0, description: 'of those, the tokens warnings add, summed' },
      uncountedTools: { type: 'integer', minimum: 0, description: 'tools whose current version was made before tokens were counted' },
      encoding: { type: 'string', enum: ['o200k_base'] },
    }),
  },
);
