import { partialBodyOf } from '../infra/http/openapi/partial-body';
import { EFFECT_BREAKDOWN_SCHEMA } from '../statistics/effect-breakdown.schemas';
import { DATE_TIME, NULLABLE_DATE_TIME, pageOf } from '../infra/http/openapi/response.schemas';

// Request and response schemas of the rollout routes: the policy schema describes what both policy routes answer, its
// partial form validates PUT /v1/rollout/policy; test/e2e/openapi.e2e-spec.ts checks a real answer of each route.

export const CANARY_STATUSES = ['running', 'promoted', 'rolled_back', 'superseded'] as const;

export const ROLLOUT_POLICY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['enabled', 'share', 'minCalls'],
  properties: {
    enabled: { type: 'boolean', description: 'whether warnings the nightly applies by itself start as canaries' },
    share: {
      type: 'number',
      minimum: 0.01,
      maximum: 0.99,
      description: 'split design only: the share of agents (by session or agent id) served a canary; the rest keep the previous version',
    },
    design: {
      enum: ['alternating', 'split'],
      description:
        'alternating (default): every caller gets the canary version, then the previous one, in turn at each nightly look; ' +
        'split: a share of the sticky ids gets the canary (turns alternating when one side gets no calls)',
    },
    minCalls: {
      type: 'integer',
      minimum: 30,
      maximum: 1000000,
      description: 'calls each version needs before a canary that did not harm is promoted',
    },
  },
} as const;

/** PUT /v1/rollout/policy: any of the policy's fields; the rest keep their stored values (or the defaults). */
export const ROLLOUT_POLICY_PATCH_SCHEMA = partialBodyOf(ROLLOUT_POLICY_SCHEMA);

const ENDED_CANARY = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'tool', 'status'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    tool: { type: 'string' },
    status: { enum: ['promoted'] },
  },
} as const;

/** What PUT /v1/rollout/policy answers: the whole resulting policy, and the canaries switching it off ended. */
export const ROLLOUT_POLICY_CHANGE_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: [...ROLLOUT_POLICY_SCHEMA.required, 'endedCanaries'],
  properties: {
    ...ROLLOUT_POLICY_SCHEMA.properties,
    endedCanaries: {
      type: 'array',
      items: ENDED_CANARY,
      description:
        "with enabled false: the nightly's running canaries, each promoted (served to everyone, as the nightly applies " +
        'warnings with the policy off); empty otherwise. Canaries of warnings added by hand keep running',
    },
  },
} as const;

export const CANARIES_QUERY_SCHEMA = {
  properties: {
    tool: { type: 'string', minLength: 1, maxLength: 200 },
    status: { enum: [...CANARY_STATUSES] },
    cursor: { type: 'string', maxLength: 300 },
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
  },
} as const;

const SIDE = {
  type: 'object',
  additionalProperties: false,
  required: ['version', 'calls', 'mistakes', 'rate', 'ci95'],
  properties: {
    version: { type: 'integer' },
    calls: { type: 'integer', minimum: 0 },
    mistakes: { type: 'integer', minimum: 0 },
    rate: { type: 'number', nullable: true },
    ci95: { type: 'array', nullable: true, items: { type: 'number' }, minItems: 2, maxItems: 2 },
  },
} as const;

/** What a decision recorded: its action and reason, and the numbers it was made on. */
export const CANARY_DECISION = {
  type: 'object',
  nullable: true,
  additionalProperties: false,
  required: ['action', 'reason', 'counted', 'canary', 'previous', 'relativeChange', 'pValue', 'verdict', 'decidedFor'],
  properties: {
    action: { enum: ['promote', 'roll_back'] },
    reason: { type: 'string' },
    counted: {
      enum: ['matched_mistakes', 'errors'],
      description: "matched_mistakes: the warning's own mistake (from its recommendation); errors: every failed call",
    },
    canary: SIDE,
    previous: SIDE,
    relativeChange: { type: 'number', nullable: true, description: '(canary rate - previous rate) / previous rate' },
    pValue: { type: 'number', nullable: true },
    verdict: { enum: ['helped', 'no_effect', 'worse', 'not_enough_data'] },
    breakdown: EFFECT_BREAKDOWN_SCHEMA,
    design: { enum: ['alternating', 'split'] },
    look: {
      type: 'integer',
      minimum: 0,
      description: 'the nightly looks taken when it was decided (a decision by hand may come before the first)',
    },
    warnings: {
      type: 'array',
      description:
        'each warning the canary tested, judged on its own mistake by the sequential rule (docs/rollout.md), with its breakdown ' +
        'by model and framework',
      items: { type: 'object' },
    },
    decidedFor: {
      type: 'string',
      format: 'date',
      nullable: true,
      description: 'the last UTC day of calls counted; null for a decision taken through the API (counted up to then)',
    },
    by: {
      enum: ['api'],
      description: 'api: promoted or stopped by hand, or ended by switching the rollout policy off; absent: the nightly',
    },
  },
} as const;

export const CANARY_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'tool',
    'warningId',
    'warningIds',
    'design',
    'looks',
    'maxLooks',
    'state',
    'previousVersion',
    'canaryVersion',
    'share',
    'minCalls',
    'status',
    'decision',
    'startedAt',
    'decidedAt',
  ],
  properties: {
    id: { type: 'string', format: 'uuid' },
    tool: { type: 'string' },
    warningId: { type: 'string', format: 'uuid', nullable: true },
    warningIds: { type: 'array', items: { type: 'string', format: 'uuid' }, description: 'every warning the canary version added' },
    design: { enum: ['alternating', 'split'] },
    looks: { type: 'integer', minimum: 0, description: 'nightly looks so far' },
    maxLooks: { type: 'integer', minimum: 1, description: 'the look at which it is decided whatever the counts' },
    state: {
      type: 'object',
      nullable: true,
      description: "the last look's numbers per warning and side, which version is served until the next look, and what it waits for",
    },
    previousVersion: { type: 'integer' },
    canaryVersion: { type: 'integer' },
    share: { type: 'number' },
    minCalls: { type: 'integer' },
    status: { enum: [...CANARY_STATUSES] },
    decision: CANARY_DECISION,
    startedAt: DATE_TIME,
    decidedAt: NULLABLE_DATE_TIME,
    expectedDecision: {
      type: 'object',
      nullable: true,
      additionalProperties: false,
      required: ['atLatestLook', 'nightlyRunsLeft', 'text'],
      description:
        'GET /v1/rollout/canaries, a running canary: the look of its deadline and how many nightly runs are left until it; null once ended',
      properties: {
        atLatestLook: { type: 'integer', minimum: 1 },
        nightlyRunsLeft: { type: 'integer', minimum: 1 },
        text: { type: 'string' },
      },
    },
  },
} as const;

const LIVE_SIDE = {
  type: 'object',
  additionalProperties: false,
  required: ['version', 'calls', 'mistakes'],
  properties: {
    version: { type: 'integer' },
    calls: { type: 'integer', minimum: 0 },
    mistakes: { type: 'integer', minimum: 0 },
  },
} as const;

/** A canary as GET /v1/rollout/canaries and the promote and stop routes answer it: with its live counts while it runs. */
export const CANARY_VIEW = {
  ...CANARY_RESPONSE,
  required: [...CANARY_RESPONSE.required, 'sides'],
  properties: {
    ...CANARY_RESPONSE.properties,
    sides: {
      type: 'object',
      nullable: true,
      additionalProperties: false,
      required: ['counted', 'canary', 'previous'],
      description:
        "a running canary's calls and failed calls per side so far (from the UTC day it started), from the live version " +
        'rollups; null once it ended (its decision holds the numbers it was decided on)',
      properties: {
        counted: { enum: ['errors'], description: 'every failed call of the version (the nightly may count the matched mistake only)' },
        canary: LIVE_SIDE,
        previous: LIVE_SIDE,
      },
    },
  },
} as const;

export const CANARIES_RESPONSE = pageOf(CANARY_VIEW);
