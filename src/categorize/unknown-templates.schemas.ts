import { CATEGORIES, SUBTYPES } from '../diagnosis';
import { ANY_JSON, DATE_TIME, NULLABLE_STRING, pageOf } from '../infra/http/openapi/response.schemas';

// The contract of the unknown lane's routes (docs/unknown-lane.md): the project's templates of `unknown` failures,
// a person's label for one, and the labelled templates as categorizer fixtures.

/** The categories a label may give: any the taxonomy has, except `unknown` itself. */
export const LABEL_CATEGORIES = CATEGORIES.filter((category) => category !== 'unknown');

export const UNKNOWN_TEMPLATES_QUERY_SCHEMA = {
  properties: {
    cursor: { type: 'string', minLength: 1, maxLength: 400, description: 'nextCursor of the previous page' },
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
  },
} as const;

export const TEMPLATE_LABEL_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['category'],
  properties: {
    category: { enum: [...LABEL_CATEGORIES], description: 'the category its later failures are stored with (docs/categorization.md)' },
    subtype: {
      enum: [...SUBTYPES, null],
      description: 'required for argument_mismatch and out_of_range (one of theirs), null or absent for the others',
    },
  },
} as const;

const closedObject = (properties: Record<string, object>) =>
  ({ type: 'object', additionalProperties: false, required: Object.keys(properties), properties }) as const;
const LABEL_CATEGORY = { type: 'string', enum: [...LABEL_CATEGORIES] } as const;
const SUBTYPE = { type: 'string', nullable: true, enum: [...SUBTYPES, null] } as const;

export const UNKNOWN_TEMPLATE_RESPONSE = closedObject({
  id: { type: 'string', format: 'uuid' },
  template: { type: 'string', description: 'the message with ids, numbers, quoted values, paths, urls and times masked' },
  count: { type: 'integer', minimum: 1, description: 'failures of the template stored as unknown' },
  firstSeen: DATE_TIME,
  lastSeen: DATE_TIME,
  sampleEventIds: { type: 'array', items: { type: 'string' }, maxItems: 5 },
  example: closedObject({ tool: { type: 'string' }, errorType: NULLABLE_STRING, message: { type: 'string', maxLength: 2000 } }),
  label: {
    ...closedObject({ category: LABEL_CATEGORY, subtype: SUBTYPE, labelledAt: DATE_TIME }),
    nullable: true,
    description: "a person's label, which its later failures are stored with; null before one",
  },
});

export const UNKNOWN_TEMPLATES_RESPONSE = pageOf(UNKNOWN_TEMPLATE_RESPONSE);

/** One line of the fixtures export: the shape of test/fixtures/categorizer/parts/*.jsonl, with its family. */
export const TEMPLATE_FIXTURE_LINE_RESPONSE = closedObject({
  id: { type: 'string' },
  source: { type: 'string' },
  family: { type: 'string', description: 'label:<project id>' },
  tool: { type: 'string' },
  arguments: { ...ANY_JSON, description: 'null: a label is about the message' },
  error: closedObject({ type: NULLABLE_STRING, message: { type: 'string' } }),
  expected: closedObject({ category: LABEL_CATEGORY, subtype: SUBTYPE }),
});
