// Building blocks every feature's response schemas share, in the JSON Schema subset OpenAPI 3.0 reads and Ajv
// checks (`nullable` included), so one object both documents a route and validates its real answers in a test.

/** A JSON Schema as our features write them for Ajv and for the document. */
export type JsonSchema = Readonly<Record<string, unknown>>;

export const DATE_TIME = { type: 'string', format: 'date-time' } as const;
export const NULLABLE_DATE_TIME = { ...DATE_TIME, nullable: true } as const;
export const NULLABLE_STRING = { type: 'string', nullable: true } as const;
export const NULLABLE_NUMBER = { type: 'number', nullable: true } as const;
export const NULLABLE_INTEGER = { type: 'integer', nullable: true } as const;
/** Any JSON value, null included (arguments, results). */
export const ANY_JSON = { description: 'any JSON value' } as const;

/** Counts keyed by a name that grows with the data (categories, ...): an open object of integers. */
export const COUNTS = { type: 'object', additionalProperties: { type: 'integer', minimum: 0 } } as const;

export const NEXT_CURSOR = {
  type: 'string',
  nullable: true,
  description: 'pass back as `cursor` for the next page; null on the last',
} as const;

/** `{items, nextCursor}`: one page of a keyset-paginated list. */
export function pageOf(item: JsonSchema, extraProperties: Record<string, JsonSchema> = {}) {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['items', 'nextCursor', ...Object.keys(extraProperties)],
    properties: { ...extraProperties, items: { type: 'array', items: item }, nextCursor: NEXT_CURSOR },
  } as const;
}

/** `{error: {code, message, details?}}`, as src/infra/http/api-error.ts answers; some routes add fields beside `error`. */
export const ERROR_RESPONSE = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      additionalProperties: false,
      required: ['code', 'message'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        details: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['path', 'message'],
            properties: {
              path: { type: 'string', description: 'JSON Pointer into the body, or /query/<name>' },
              message: { type: 'string' },
            },
          },
        },
      },
    },
  },
} as const;
