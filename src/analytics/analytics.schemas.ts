import { COUNTS, DATE_TIME, NULLABLE_DATE_TIME, NULLABLE_INTEGER, NULLABLE_STRING, pageOf } from '../infra/http/openapi/response.schemas';
import { partialBodyOf } from '../infra/http/openapi/partial-body';
import { EFFECT_BREAKDOWN_SCHEMA } from '../statistics/effect-breakdown.schemas';
import { RECOMMENDATION_KINDS } from './recommendation-drafts';

// Request and response schemas of the analytics routes: the policy schema describes what both policy routes answer,
// its partial form validates PUT /v1/policy; test/e2e/openapi.e2e-spec.ts checks a real answer of each route.

const RECOMMENDATION_STATUSES = ['proposed', 'applied', 'dismissed'] as const;

export const POLICY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['autoApply', 'minOccurrences', 'minShare', 'autoApplyKinds', 'autoRetire', 'warningTokenCap', 'reviewMode'],
  properties: {
    autoApply: { type: 'boolean' },
    minOccurrences: { type: 'integer', minimum: 1, maximum: 1000000 },
    minShare: { type: 'number', minimum: 0, maximum: 1 },
    autoApplyKinds: { type: 'array', uniqueItems: true, items: { enum: [...RECOMMENDATION_KINDS] } },
    autoRetire: { type: 'boolean' },
    warningTokenCap: {
      type: 'integer',
      minimum: 0,
      maximum: 4000,
      description:
        "the most o200k_base tokens the nightly's warnings may add to one tool's description (default 120); the nightly " +
        'keeps the warnings with the best measured effect per token under it and retires or does not apply the rest',
    },
    reviewMode: {
      type: 'boolean',
      description: 'review mode: every recommendation the nightly would apply waits for POST /v1/recommendations/{id}/approve',
    },
  },
} as const;

/** PUT /v1/policy: any of the policy's fields; the rest keep their stored values (or the defaults). */
export const POLICY_PATCH_SCHEMA = partialBodyOf(POLICY_SCHEMA);

export const WAITING_REASONS = [
  'proposal_only',
  'review',
  'auto_apply_off',
  'kind_not_auto_applied',
  'below_thresholds',
  'awaiting_approval',
  'restates_applied',
  'canary',
  'nightly',
] as const;

const WAITING_FOR = {
  type: 'object',
  nullable: true,
  additionalProperties: false,
  required: ['reason'],
  description:
    'what a proposed recommendation waits for before the nightly applies it (null unless proposed), the first that holds: ' +
    'proposal_only (a change for a person to make outside the description: `detail`), review (its text quotes odd event ' +
    'data: `reviewReason`; apply it by hand), auto_apply_off, kind_not_auto_applied (`kind`), below_thresholds (`count` of ' +
    '`minOccurrences`, `share` of `minShare`), awaiting_approval (review mode: approve it with POST ' +
    '/v1/recommendations/{id}/approve), restates_applied (a schema_quality line about the mistakes applied ' +
    'recommendation `recommendationId` already warns about: not added while that one is applied), canary (its tool ' +
    'runs canary `canaryId` since `since`: decided first), ' +
    'nightly (nothing holds it: the next nightly run applies it, as a canary while the rollout policy is on)',
  properties: {
    reason: { enum: [...WAITING_REASONS] },
    detail: { type: 'string' },
    reviewReason: { type: 'string' },
    kind: { type: 'string' },
    count: { type: 'integer', minimum: 0 },
    minOccurrences: { type: 'integer' },
    share: { type: 'number' },
    minShare: { type: 'number' },
    recommendationId: { type: 'string', format: 'uuid' },
    canaryId: { type: 'string', format: 'uuid' },
    tool: { type: 'string' },
    since: DATE_TIME,
  },
} as const;

export const RECOMMENDATIONS_QUERY_SCHEMA = {
  properties: {
    status: { enum: [...RECOMMENDATION_STATUSES] },
    tool: { type: 'string', minLength: 1, maxLength: 200 },
    cursor: { type: 'string', format: 'uuid' },
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
  },
} as const;

export const RECOMMENDATION_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'tool',
    'kind',
    'evidenceKey',
    'text',
    'evidence',
    'confidence',
    'status',
    'warningId',
    'appliedVersion',
    'appliedAt',
    'effect',
    'approvedAt',
    'waitingFor',
  ],
  properties: {
    id: { type: 'string', format: 'uuid' },
    tool: { type: 'string' },
    kind: { type: 'string', enum: [...RECOMMENDATION_KINDS] },
    evidenceKey: { type: 'string' },
    text: { type: 'string' },
    evidence: { type: 'object', description: 'what the nightly job saw: counts, example event ids, learned limits' },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
    status: { type: 'string', enum: [...RECOMMENDATION_STATUSES] },
    warningId: { ...NULLABLE_STRING, format: 'uuid' },
    appliedVersion: NULLABLE_INTEGER,
    appliedAt: NULLABLE_DATE_TIME,
    effect: {
      type: 'object',
      nullable: true,
      required: ['verdict'],
      description:
        "the applied warning's measured effect: {verdict, method, withWarning, withoutWarning, relativeChange, ...}; each side: " +
        'calls, mistakes, rate, ci95, and what the SDK guard did: reachedToolCount, preventedCount, correctedCount; ' +
        'breakdown: the same per model and per framework',
      properties: {
        verdict: { type: 'string', enum: ['helped', 'no_effect', 'worse', 'not_enough_data'] },
        breakdown: EFFECT_BREAKDOWN_SCHEMA,
      },
    },
    approvedAt: { ...NULLABLE_DATE_TIME, description: 'when a person approved it under review mode' },
    waitingFor: WAITING_FOR,
  },
} as const;

export const RECOMMENDATIONS_RESPONSE = {
  ...pageOf(RECOMMENDATION_RESPONSE),
  description: 'nextCursor is the last id of the page',
} as const;

export const JOB_RUN_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'job', 'date', 'trigger', 'status', 'counts', 'error', 'startedAt', 'finishedAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    job: { type: 'string', enum: ['nightly'] },
    date: { type: 'string', format: 'date', description: 'the UTC day the run analysed' },
    trigger: { type: 'string', enum: ['api', 'schedule'] },
    status: {
      type: 'string',
      enum: ['queued', 'running', 'succeeded', 'failed', 'skipped'],
      description: 'queued and running are not final: poll GET /v1/jobs/{id} until the run has another status',
    },
    counts: { ...COUNTS, nullable: true, description: 'what the run did: {tools, recommendations, applied, ...}; null until it succeeds' },
    error: NULLABLE_STRING,
    startedAt: { ...DATE_TIME, description: 'when the run started; for a queued run, when it was queued' },
    finishedAt: NULLABLE_DATE_TIME,
  },
} as const;

export const JOB_RUNS_RESPONSE = pageOf(JOB_RUN_RESPONSE);
