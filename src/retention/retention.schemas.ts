import { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS, ROLLUP_RETENTION_DAYS } from './partition-plan';

// The retention routes' contract: RETENTION_BODY_SCHEMA validates PUT /v1/retention; RETENTION_RESPONSE is what both
// routes answer (test/e2e/openapi.e2e-spec.ts checks a real answer of each against it).

export const RETENTION_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['rawEventRetentionDays'],
  properties: {
    rawEventRetentionDays: { type: 'integer', minimum: MIN_RETENTION_DAYS, maximum: MAX_RETENTION_DAYS },
  },
} as const;

export const RETENTION_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: ['rawEventRetentionDays', 'rollupRetentionDays'],
  properties: {
    rawEventRetentionDays: { type: 'integer', minimum: MIN_RETENTION_DAYS, maximum: MAX_RETENTION_DAYS },
    rollupRetentionDays: { type: 'integer', const: ROLLUP_RETENTION_DAYS },
  },
} as const;

export interface RetentionSettings {
  rawEventRetentionDays: number;
  rollupRetentionDays: number;
}
