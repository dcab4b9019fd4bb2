import { ApiError } from '../infra/http/api-error';
import { compileQueryValidator } from '../infra/http/query-validator';
import {
  DATE_TIME,
  NULLABLE_DATE_TIME,
  NULLABLE_INTEGER,
  NULLABLE_NUMBER,
  NULLABLE_STRING,
  pageOf,
} from '../infra/http/openapi/response.schemas';
import { ajvFor, toFieldErrors } from '../infra/validation/ajv-factory';
import { KINDS_WITH_THRESHOLD, RULE_KINDS, type RuleKind } from './alert-conditions';
import { DESTINATION_KINDS, type DestinationKind } from './notification-format';
import { destinationUrlProblem } from './outbound-request';

// Request and response schemas of the alert routes: each request schema validates its route's body and documents it;
// test/e2e/openapi.e2e-spec.ts checks a real answer of each route against the response schemas.

export const MAX_RULES_PER_PROJECT = 50;
export const MAX_DESTINATIONS_PER_PROJECT = 20;
const TOOL_NAME = { type: 'string', minLength: 1, maxLength: 200 } as const;

const RULE_FIELDS = {
  name: { type: 'string', minLength: 1, maxLength: 100 },
  kind: { enum: [...RULE_KINDS] },
  tools: { type: 'array', maxItems: 100, uniqueItems: true, items: TOOL_NAME, description: 'the tools it covers; empty or absent: all' },
  threshold: {
    type: 'number',
    minimum: 0,
    maximum: 100,
    nullable: true,
    description: 'percent: the success rate (success_rate_below) or points of drop (success_rate_drop); none for other kinds',
  },
  minCalls: { type: 'integer', minimum: 1, maximum: 1000000, description: 'calls in the window (events, for new_error_group)' },
  windowHours: { type: 'integer', minimum: 1, maximum: 168 },
  cooldownMinutes: { type: 'integer', minimum: 0, maximum: 10080 },
  isEnabled: { type: 'boolean' },
} as const;

export const RULE_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'kind'],
  properties: RULE_FIELDS,
} as const;

export const RULE_PATCH_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: (({ kind: _kind, ...rest }) => rest)(RULE_FIELDS),
} as const;

export interface RuleInput {
  name: string;
  kind: RuleKind;
  tools: string[];
  threshold: number | null;
  minCalls: number;
  windowHours: number;
  cooldownMinutes: number;
  isEnabled: boolean;
}

const RULE_DEFAULTS = { tools: [], threshold: null, minCalls: 20, windowHours: 1, cooldownMinutes: 60, isEnabled: true };

const validateRule = ajvFor('body').compile(RULE_BODY_SCHEMA);
const validateRulePatch = ajvFor('body').compile(RULE_PATCH_SCHEMA);

export function invalidRule(details: { path: string; message: string }[]): ApiError {
  return new ApiError(400, 'invalid_rule', `Invalid alert rule: ${details[0].path} ${details[0].message}`, { details });
}

/** POST /v1/alerts/rules: a rule with its defaults filled in, or 400 invalid_rule naming each bad field. */
export function readRuleBody(body: unknown): RuleInput {
  if (!validateRule(body)) throw invalidRule(toFieldErrors(validateRule.errors, ''));
  const rule = { ...RULE_DEFAULTS, ...(body as Partial<RuleInput>) } as RuleInput;
  checkThreshold(rule.kind, rule.threshold);
  return rule;
}

/** PATCH /v1/alerts/rules/:id: the fields to change, checked against the rule's kind. */
export function readRulePatch(body: unknown, kind: RuleKind): Partial<RuleInput> {
  if (!validateRulePatch(body)) throw invalidRule(toFieldErrors(validateRulePatch.errors, ''));
  const patch = body as Partial<RuleInput>;
  if ('threshold' in patch) checkThreshold(kind, patch.threshold ?? null);
  return patch;
}

function checkThreshold(kind: RuleKind, threshold: number | null) {
  const needsOne = KINDS_WITH_THRESHOLD.includes(kind);
  if (needsOne && threshold === null) throw invalidRule([{ path: '/threshold', message: `is required for ${kind} (a percentage)` }]);
  if (!needsOne && threshold !== null) throw invalidRule([{ path: '/threshold', message: `must be null or absent for ${kind}` }]);
}

export const DESTINATION_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'kind', 'url'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    kind: { enum: [...DESTINATION_KINDS], description: 'webhook: signed JSON (docs/alerts.md); slack: an incoming-webhook URL' },
    url: { type: 'string', minLength: 1, maxLength: 2000 },
  },
} as const;

export const DESTINATION_PATCH_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    name: DESTINATION_BODY_SCHEMA.properties.name,
    url: DESTINATION_BODY_SCHEMA.properties.url,
    isPaused: { type: 'boolean', description: 'false resumes a paused destination' },
  },
} as const;

export interface DestinationInput {
  name: string;
  kind: DestinationKind;
  url: string;
}

export interface DestinationPatch {
  name?: string;
  url?: string;
  isPaused?: boolean;
}

const validateDestination = ajvFor('body').compile(DESTINATION_BODY_SCHEMA);
const validateDestinationPatch = ajvFor('body').compile(DESTINATION_PATCH_SCHEMA);

export function invalidDestination(details: { path: string; message: string }[]): ApiError {
  return new ApiError(400, 'invalid_destination', `Invalid alert destination: ${details[0].path} ${details[0].message}`, { details });
}

export function readDestinationBody(body: unknown): DestinationInput {
  if (!validateDestination(body)) throw invalidDestination(toFieldErrors(validateDestination.errors, ''));
  const input = body as DestinationInput;
  checkUrl(input.url);
  return input;
}

export function readDestinationPatch(body: unknown): DestinationPatch {
  if (!validateDestinationPatch(body)) throw invalidDestination(toFieldErrors(validateDestinationPatch.errors, ''));
  const patch = body as DestinationPatch;
  if (patch.url !== undefined) checkUrl(patch.url);
  return patch;
}

function checkUrl(url: string) {
  const problem = destinationUrlProblem(url);
  if (problem) throw invalidDestination([{ path: '/url', message: problem }]);
}

export const INCIDENTS_QUERY_SCHEMA = {
  properties: {
    status: { enum: ['open', 'resolved'] },
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
  },
} as const;

export const DELIVERIES_QUERY_SCHEMA = {
  properties: {
    destinationId: { type: 'string', format: 'uuid' },
    incidentId: { type: 'string', format: 'uuid' },
    cursor: { type: 'string', maxLength: 200 },
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
  },
} as const;

export const readIncidentsQuery = compileQueryValidator<{ status?: 'open' | 'resolved'; limit: number }>(INCIDENTS_QUERY_SCHEMA);
export const readDeliveriesQuery = compileQueryValidator<{ destinationId?: string; incidentId?: string; cursor?: string; limit: number }>(
  DELIVERIES_QUERY_SCHEMA,
);

export const RULE_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'name',
    'kind',
    'tools',
    'threshold',
    'minCalls',
    'windowHours',
    'cooldownMinutes',
    'isEnabled',
    'createdAt',
    'updatedAt',
  ],
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    kind: { type: 'string', enum: [...RULE_KINDS] },
    tools: { type: 'array', items: { type: 'string' } },
    threshold: NULLABLE_NUMBER,
    minCalls: { type: 'integer' },
    windowHours: { type: 'integer' },
    cooldownMinutes: { type: 'integer' },
    isEnabled: { type: 'boolean' },
    createdAt: DATE_TIME,
    updatedAt: DATE_TIME,
  },
} as const;

export const RULES_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: ['items'],
  properties: { items: { type: 'array', items: RULE_RESPONSE } },
} as const;

const DESTINATION_PROPERTIES = {
  id: { type: 'string', format: 'uuid' },
  name: { type: 'string' },
  kind: { type: 'string', enum: [...DESTINATION_KINDS] },
  url: { type: 'string' },
  status: { type: 'string', enum: ['active', 'failing', 'paused'], description: 'paused after a day of failed deliveries' },
  failingSince: NULLABLE_DATE_TIME,
  pausedAt: NULLABLE_DATE_TIME,
  secretPrefix: { type: 'string', description: 'the first characters of the signing secret, to tell secrets apart' },
  createdAt: DATE_TIME,
  updatedAt: DATE_TIME,
} as const;

export const DESTINATION_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: Object.keys(DESTINATION_PROPERTIES),
  properties: DESTINATION_PROPERTIES,
} as const;

export const CREATED_DESTINATION_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: [...Object.keys(DESTINATION_PROPERTIES), 'secret'],
  properties: {
    ...DESTINATION_PROPERTIES,
    secret: { type: 'string', description: 'the webhook signing secret, shown this once' },
  },
} as const;

export const DESTINATIONS_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: ['items'],
  properties: { items: { type: 'array', items: DESTINATION_RESPONSE } },
} as const;

export const TEST_NOTIFICATION_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: ['delivered', 'outcome', 'statusCode', 'latencyMs', 'error'],
  properties: {
    delivered: { type: 'boolean' },
    outcome: { type: 'string', enum: ['delivered', 'failed', 'refused'] },
    statusCode: NULLABLE_INTEGER,
    latencyMs: NULLABLE_INTEGER,
    error: NULLABLE_STRING,
  },
} as const;

export const INCIDENT_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'ruleId',
    'ruleName',
    'ruleKind',
    'subject',
    'tool',
    'status',
    'summary',
    'details',
    'isNotified',
    'openedAt',
    'resolvedAt',
  ],
  properties: {
    id: { type: 'string', format: 'uuid' },
    ruleId: { type: 'string', format: 'uuid' },
    ruleName: { type: 'string' },
    ruleKind: { type: 'string', enum: [...RULE_KINDS] },
    subject: { type: 'string', description: 'tool:<name>, group:<id> or recommendation:<id>' },
    tool: NULLABLE_STRING,
    status: { type: 'string', enum: ['open', 'resolved'] },
    summary: { type: 'string' },
    details: { type: 'object', description: 'the numbers that opened it' },
    isNotified: { type: 'boolean', description: 'false when it opened within its rule cool-down: not sent' },
    openedAt: DATE_TIME,
    resolvedAt: NULLABLE_DATE_TIME,
  },
} as const;

export const INCIDENTS_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: ['items'],
  properties: { items: { type: 'array', items: INCIDENT_RESPONSE } },
} as const;

export const DELIVERY_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'destinationId',
    'notificationId',
    'incidentId',
    'event',
    'attempt',
    'outcome',
    'statusCode',
    'latencyMs',
    'error',
    'createdAt',
  ],
  properties: {
    id: { type: 'string', format: 'uuid' },
    destinationId: { type: 'string', format: 'uuid' },
    notificationId: { type: 'string', description: 'shared by the attempts of one notification' },
    incidentId: { ...NULLABLE_STRING, format: 'uuid' },
    event: { type: 'string', enum: ['opened', 'resolved', 'rollout', 'test'] },
    attempt: { type: 'integer', minimum: 1 },
    outcome: { type: 'string', enum: ['delivered', 'failed', 'refused'] },
    statusCode: NULLABLE_INTEGER,
    latencyMs: NULLABLE_INTEGER,
    error: NULLABLE_STRING,
    createdAt: DATE_TIME,
  },
} as const;

export const DELIVERIES_RESPONSE = { ...pageOf(DELIVERY_RESPONSE), description: 'newest first' } as const;
