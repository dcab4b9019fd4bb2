// Response schemas of the dashboard routes, for the OpenAPI document.

const nullableNumber = { type: 'number', nullable: true } as const;
const nullableString = { type: 'string', nullable: true } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const countsByCategory = { type: 'object', additionalProperties: { type: 'integer' }, description: '{"overflow": 3, ...}' } as const;
const nextCursor = { type: 'string', nullable: true, description: 'pass back as `cursor` for the next page; null on the last' } as const;

export const ERROR_RESPONSE = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        details: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
      },
    },
  },
};

const RANGE = {
  from: { ...dateTime, description: 'start of the first bucket' },
  to: { ...dateTime, description: 'end of the last bucket (exclusive)' },
  bucket: { enum: ['hour', 'day'] },
};

const USAGE_TOTALS = {
  calls: { type: 'integer' },
  errors: { type: 'integer' },
  successRate: { ...nullableNumber, description: 'successes / calls, null without calls' },
  errorsByCategory: countsByCategory,
  latencyP50Ms: nullableNumber,
  latencyP95Ms: nullableNumber,
};

const SERIES = {
  type: 'array',
  items: {
    type: 'object',
    properties: { start: dateTime, calls: { type: 'integer' }, errors: { type: 'integer' }, successRate: nullableNumber, errorsByCategory: countsByCategory },
  },
};

const TOOL_ROW = { type: 'object', properties: { tool: { type: 'string' }, ...USAGE_TOTALS } };

export const ERROR_GROUP_RESPONSE = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    tool: { type: 'string' },
    category: { type: 'string' },
    subtype: nullableString,
    argumentPath: nullableString,
    messageTemplate: { type: 'string' },
    count: { type: 'integer', description: 'occurrences since the group was first seen' },
    firstSeen: dateTime,
    lastSeen: dateTime,
    status: { enum: ['open', 'resolved', 'ignored', 'regressed'] },
    intendedArgument: nullableString,
    arrayForScalarCount: { type: 'integer' },
    minOffendingValue: nullableNumber,
    maxOffendingValue: nullableNumber,
  },
};

export const OVERVIEW_RESPONSE = {
  type: 'object',
  properties: {
    ...RANGE,
    totals: { type: 'object', properties: USAGE_TOTALS },
    previous: { type: 'object', description: 'the same figures over the period of the same length right before', properties: { from: dateTime, to: dateTime, ...USAGE_TOTALS } },
    trend: {
      type: 'object',
      properties: {
        callsChange: { ...nullableNumber, description: 'relative: 0.1 is 10% more calls' },
        errorsChange: nullableNumber,
        successRateChange: { ...nullableNumber, description: 'absolute: 0.02 is two points better' },
      },
    },
    topFailingTools: { type: 'array', items: TOOL_ROW },
    topErrorGroups: { type: 'array', items: ERROR_GROUP_RESPONSE },
    series: SERIES,
  },
};

export const TOOLS_STATS_RESPONSE = {
  type: 'object',
  properties: { from: dateTime, to: dateTime, bucket: { enum: ['day'] }, sort: { type: 'string' }, items: { type: 'array', items: TOOL_ROW }, nextCursor },
};

export const TOOL_STATS_RESPONSE = {
  type: 'object',
  properties: { tool: { type: 'string' }, ...RANGE, totals: { type: 'object', properties: USAGE_TOTALS }, series: SERIES },
};

export const ERROR_GROUPS_RESPONSE = {
  type: 'object',
  properties: { items: { type: 'array', items: ERROR_GROUP_RESPONSE }, nextCursor },
};

export const ERROR_GROUP_DETAIL_RESPONSE = {
  type: 'object',
  properties: {
    ...ERROR_GROUP_RESPONSE.properties,
    samples: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          occurredAt: dateTime,
          agent: nullableString,
          model: nullableString,
          descriptionVersion: { type: 'integer', nullable: true },
          arguments: { description: 'any JSON' },
          error: { type: 'object', nullable: true, properties: { type: nullableString, message: { type: 'string' } } },
          wrongArgument: nullableString,
          intendedArgument: nullableString,
          offendingValue: nullableNumber,
        },
      },
    },
    failedArguments: {
      type: 'array',
      description: "each sample's value at the group's argument path ('' and all arguments when there is none)",
      items: { type: 'object', properties: { eventId: { type: 'string' }, path: { type: 'string' }, value: { description: 'any JSON' } } },
    },
  },
};

export const VERSION_HISTORY_RESPONSE = {
  type: 'object',
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          version: { type: 'integer' },
          baseDescription: { type: 'string' },
          description: { type: 'string' },
          warnings: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, kind: { type: 'string' }, text: { type: 'string' } } } },
          createdAt: dateTime,
          calls: { type: 'integer', description: 'calls that reported this description version' },
          errors: { type: 'integer' },
          errorRate: nullableNumber,
        },
      },
    },
    nextCursor,
  },
};
