import { SNIPPET_FORMATS } from './tool-snippet';

// The export routes' query and answer (docs/review-mode.md); test/e2e/openapi.e2e-spec.ts checks a real answer of each.

export const SOURCE_FIX_QUERY_SCHEMA = {
  properties: {
    format: {
      enum: [...SNIPPET_FORMATS],
      default: 'mcp',
      description: "the shape of the ready-to-paste snippet: OpenAI's function tool, Anthropic's tool, an MCP tool, or zod source",
    },
  },
} as const;

const JSON_PATCH_OPERATION = {
  type: 'object',
  additionalProperties: false,
  required: ['op', 'path'],
  properties: {
    op: { enum: ['add', 'replace', 'move', 'test'] },
    path: { type: 'string', description: "a JSON Pointer into the tool's parameters schema" },
    from: { type: 'string' },
    value: {},
  },
} as const;

const NULLABLE_UUID = { type: 'string', format: 'uuid', nullable: true } as const;

export const SOURCE_FIX_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: ['tool', 'version', 'findings', 'description', 'schemaPatch', 'parameters', 'requiresReview', 'snippet'],
  properties: {
    tool: { type: 'string' },
    version: { type: 'integer', minimum: 1, description: 'the registered version the fix is computed against' },
    findings: {
      type: 'array',
      description:
        'each finding whose fix the definition does not carry yet, and how it is fixed: schema (`patch`), description ' +
        '(`sentence`, folded into description.rewritten) or by_hand (`instruction`: values toolcoach does not know)',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['recommendationId', 'warningId', 'kind', 'text', 'change'],
        properties: {
          recommendationId: NULLABLE_UUID,
          warningId: NULLABLE_UUID,
          kind: { type: 'string' },
          text: { type: 'string' },
          change: { enum: ['schema', 'description', 'by_hand'] },
          patch: { type: 'array', items: JSON_PATCH_OPERATION },
          sentence: { type: 'string' },
          instruction: { type: 'string' },
        },
      },
    },
    description: {
      type: 'object',
      additionalProperties: false,
      required: ['current', 'rewritten'],
      properties: {
        current: { type: 'string', description: "the tool's own registered description" },
        rewritten: { type: 'string', description: 'the description with the findings folded in as sentences' },
      },
    },
    schemaPatch: { type: 'array', items: JSON_PATCH_OPERATION, description: 'RFC 6902, against the registered parameters' },
    parameters: { type: 'object', description: 'the registered parameters with schemaPatch applied' },
    requiresReview: { type: 'boolean', description: 'a finding quotes event data that is not plain: read it before pasting' },
    snippet: {
      type: 'object',
      additionalProperties: false,
      required: ['format', 'language', 'text', 'notConverted'],
      properties: {
        format: { enum: [...SNIPPET_FORMATS] },
        language: { enum: ['json', 'typescript'] },
        text: { type: 'string' },
        notConverted: { type: 'array', items: { type: 'string' }, description: 'schema keywords the zod source leaves out' },
      },
    },
  },
} as const;
