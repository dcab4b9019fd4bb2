import { partialBodyOf } from '../../infra/http/openapi/partial-body';

// The guard's contract (docs/guard.md): the per-project policy (request and response of GET/PUT
// /v1/guard/policy) and the `guard` section served beside each tool's description, which the SDKs check arguments with.

export const GUARD_MODES = ['off', 'report', 'correct', 'strict'] as const;
export type GuardMode = (typeof GUARD_MODES)[number];

export interface GuardPolicy {
  mode: GuardMode;
}

export const GUARD_POLICY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['mode'],
  properties: {
    mode: {
      type: 'string',
      enum: [...GUARD_MODES],
      description:
        'off: no check; report: check, change nothing; correct (default): apply safe corrections, refuse unsafe calls; strict: refuse every invalid call',
    },
  },
} as const;

/** PUT /v1/guard/policy: like every policy route, a partial update ({} changes nothing and answers the policy). */
export const GUARD_POLICY_PATCH_SCHEMA = partialBodyOf(GUARD_POLICY_SCHEMA);

export const GUARD_SECTION = {
  type: 'object',
  additionalProperties: false,
  required: ['version', 'policy', 'schema', 'renames', 'limits'],
  description: "what an SDK's guard checks a call against before the tool runs; served with the description it belongs to",
  properties: {
    version: { type: 'integer', minimum: 1, description: 'the description version this guard belongs to' },
    policy: GUARD_POLICY_SCHEMA.properties.mode,
    schema: {
      type: 'string',
      enum: ['parameters'],
      description: "the JSON Schema to check arguments with: the item's own `parameters` (not repeated here)",
    },
    renames: {
      type: 'array',
      maxItems: 50,
      description: 'wrong argument names this project used for declared ones (last 30 days), most frequent first',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['wrong', 'intended', 'count'],
        properties: {
          wrong: { type: 'string' },
          intended: { type: 'string' },
          count: { type: 'integer', minimum: 0, description: 'mistaken calls this rename was learned from' },
        },
      },
    },
    limits: {
      type: 'array',
      description: "the limits of the tool's active learned_limit warnings",
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['path', 'bound', 'value', 'isInclusive', 'reason', 'evidenceCount'],
        properties: {
          path: { type: 'string', description: 'JSON Pointer of the argument' },
          bound: { type: 'string', enum: ['upper', 'lower'] },
          value: { type: 'number' },
          isInclusive: { type: 'boolean', description: 'the value itself fails too' },
          reason: { type: 'string' },
          evidenceCount: { type: 'integer', minimum: 0 },
        },
      },
    },
  },
} as const;
