import { MAX_BREAKDOWN_VALUES } from './effect-breakdown';

// The response schema of an effect's (or a canary decision's) breakdown by model and framework, as the recommendation
// and canary routes document it; effect-breakdown.spec.ts checks a real breakdown against it.

const RATE_SIDE = {
  type: 'object',
  additionalProperties: false,
  required: ['calls', 'mistakes', 'rate', 'ci95'],
  properties: {
    calls: { type: 'integer', minimum: 0 },
    mistakes: { type: 'integer', minimum: 0 },
    rate: { type: 'number', nullable: true },
    ci95: { type: 'array', nullable: true, items: { type: 'number' }, minItems: 2, maxItems: 2 },
  },
} as const;

const VALUE_EFFECTS = {
  type: 'array',
  maxItems: MAX_BREAKDOWN_VALUES,
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['value', 'withWarning', 'withoutWarning', 'relativeChange', 'pValue', 'verdict'],
    properties: {
      value: { type: 'string', description: 'the model (or framework) as the events named it' },
      withWarning: { ...RATE_SIDE, description: 'its calls that saw the warning (of a canary: the canary version)' },
      withoutWarning: { ...RATE_SIDE, description: 'its calls that did not (of a canary: the previous version)' },
      relativeChange: { type: 'number', nullable: true },
      pValue: { type: 'number', nullable: true },
      verdict: { enum: ['helped', 'no_effect', 'worse', 'not_enough_data'] },
    },
  },
} as const;

export const EFFECT_BREAKDOWN_SCHEMA = {
  type: 'object',
  nullable: true,
  additionalProperties: false,
  required: ['minCallsPerSide', 'model', 'framework', 'omitted', 'isDivided'],
  description:
    'the same comparison per model and per framework (docs/rollout-statistics.md), beside the overall verdict and never ' +
    `deciding it: the values with at least minCallsPerSide calls on each side, at most ${MAX_BREAKDOWN_VALUES} per dimension, ` +
    'most calls first; null where there is none (a misnamed-tool warning, a decision taken by hand)',
  properties: {
    minCallsPerSide: { type: 'integer', minimum: 1 },
    model: VALUE_EFFECTS,
    framework: VALUE_EFFECTS,
    omitted: {
      type: 'object',
      additionalProperties: false,
      required: ['model', 'framework'],
      description: 'values left out per dimension: too few calls on a side, or beyond the listed ones',
      properties: { model: { type: 'integer', minimum: 0 }, framework: { type: 'integer', minimum: 0 } },
    },
    isDivided: { type: 'boolean', description: 'in one dimension, one value was helped and another made worse' },
  },
} as const;
