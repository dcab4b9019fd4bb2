// What the health routes answer; test/e2e/openapi.e2e-spec.ts checks a real answer of each against these.

const UP_OR_DOWN = { type: 'string', enum: ['up', 'down'] } as const;

export const HEALTH_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: ['status'],
  properties: { status: { type: 'string', enum: ['ok'] } },
} as const;

/** The same shape with 200 (ready) and 503 (unavailable, naming the check that failed). */
export const READINESS_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: ['status', 'checks'],
  properties: {
    status: { type: 'string', enum: ['ready', 'unavailable'] },
    checks: {
      type: 'object',
      additionalProperties: false,
      required: ['postgres', 'redis'],
      properties: { postgres: UP_OR_DOWN, redis: UP_OR_DOWN },
    },
    problems: {
      type: 'object',
      additionalProperties: false,
      description: 'why a check failed, when it says more than down (a Redis that answers but refuses writes)',
      properties: { redis: { type: 'string', maxLength: 300 } },
    },
  },
} as const;
