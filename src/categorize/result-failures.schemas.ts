import { RESULT_FAILURE_RULES, ResultFailureRule } from '../diagnosis';

// The contract of GET/PUT /v1/result-failures/policy (docs/result-failures.md): which rules that read a reported
// success's result as a failure a project turned off. Every rule is on by default.

export interface ResultFailurePolicy {
  disabledRules: ResultFailureRule[];
}

const RULE_LIST = {
  type: 'array',
  items: { type: 'string', enum: [...RESULT_FAILURE_RULES] },
  maxItems: RESULT_FAILURE_RULES.length,
  uniqueItems: true,
  description: `the rules turned off, of ${RESULT_FAILURE_RULES.join(', ')}; [] (default): every rule on`,
} as const;

export const RESULT_FAILURE_POLICY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['disabledRules'],
  properties: { disabledRules: RULE_LIST },
} as const;

/** PUT: like every policy route, a partial update ({} changes nothing); the list given replaces the stored one. */
export const RESULT_FAILURE_POLICY_PATCH_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: { disabledRules: RULE_LIST },
  description: 'any of the fields; each one left out keeps its current value, and {} changes nothing',
} as const;
