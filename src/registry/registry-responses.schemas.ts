import { CATEGORIES, SUBTYPES } from '../diagnosis';
import { DATE_TIME, NEXT_CURSOR, NULLABLE_STRING } from '../infra/http/openapi/response.schemas';
import { GUARD_SECTION } from './guard/guard.schemas';
import { TOOL_FORMATS } from './registry.types';
import { SCHEMA_DIFFERENCES } from './tools/schema-equivalence';
import { QUALITY_FINDING_KINDS } from './quality/tool-quality.types';

// What the registry routes answer; test/e2e/openapi.e2e-spec.ts checks a real answer of each against these.

const TOOL_NAME = { type: 'string', minLength: 1, maxLength: 200 } as const;
const VERSION = { type: 'integer', minimum: 1 } as const;
const JSON_SCHEMA = { type: 'object', description: 'JSON Schema of the arguments' } as const;

const EVIDENCE = {
  type: 'object',
  required: ['count', 'firstSeen', 'lastSeen', 'exampleEventIds'],
  description: 'what the warning was learned from; learned warnings add their own fields',
  properties: {
    count: { type: 'integer', minimum: 0 },
    firstSeen: { ...NULLABLE_STRING, format: 'date-time' },
    lastSeen: { ...NULLABLE_STRING, format: 'date-time' },
    exampleEventIds: { type: 'array', items: { type: 'string' } },
  },
} as const;

/** A warning as an agent reads it inside a description. */
const SERVED_WARNING = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'kind', 'text', 'evidence', 'status'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    kind: { type: 'string' },
    text: { type: 'string' },
    evidence: EVIDENCE,
    status: { type: 'string', enum: ['active'] },
  },
} as const;

/** A warning with its whole lifecycle, as the warning routes answer it. */
const WARNING = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'kind', 'text', 'evidence', 'evidenceKey', 'source', 'status', 'dismissedReason', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    kind: { type: 'string' },
    text: { type: 'string' },
    evidence: EVIDENCE,
    evidenceKey: NULLABLE_STRING,
    source: { type: 'string', enum: ['manual', 'auto'] },
    status: { type: 'string', enum: ['active', 'dismissed'] },
    dismissedReason: NULLABLE_STRING,
    createdAt: DATE_TIME,
    updatedAt: DATE_TIME,
  },
} as const;

const QUALITY_FINDING = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'path', 'severity', 'message', 'fix'],
  properties: {
    kind: { type: 'string', enum: [...QUALITY_FINDING_KINDS] },
    path: { type: 'string', description: 'JSON Pointer into the definition {name, description, parameters}' },
    severity: { type: 'string', enum: ['high', 'medium', 'low'] },
    message: { type: 'string' },
    fix: { type: 'string' },
    addition: {
      type: 'string',
      description: 'prose the description can carry as is (the nightly may apply it as a warning); absent when the fix is a schema change',
    },
  },
} as const;

/** A tool's quality report (docs/tool-quality.md): 100 minus the findings' weights, most expected impact first. */
const QUALITY = {
  type: 'object',
  additionalProperties: false,
  required: ['score', 'findings'],
  properties: {
    score: { type: 'integer', minimum: 0, maximum: 100 },
    findings: { type: 'array', items: QUALITY_FINDING },
  },
} as const;

/** Which parameters schema a registration kept (schema-equivalence.ts, docs/registration.md). */
const SCHEMA_CHOICE = {
  type: 'object',
  additionalProperties: false,
  required: ['kept', 'reason', 'differences'],
  properties: {
    kept: {
      type: 'string',
      enum: ['current', 'incoming'],
      description:
        'current: the stored schema stays, served as before (no new version for it, a running canary goes on); incoming: the registered one is stored',
    },
    reason: {
      type: 'string',
      enum: ['new_tool', 'identical', 'equivalent', 'changed'],
      description:
        'identical: the same schema (key order aside); equivalent: accepts the same arguments, spelled differently; changed: accepts other arguments, or a description both give one place was reworded',
    },
    differences: {
      type: 'array',
      items: { type: 'string', enum: [...SCHEMA_DIFFERENCES] },
      description: 'for equivalent: what the two schemas differ in (annotations, spellings); empty otherwise',
    },
  },
} as const;

export const REGISTRATION_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'version', 'status', 'schema', 'quality'],
  properties: {
    name: TOOL_NAME,
    version: VERSION,
    status: {
      type: 'string',
      enum: ['created', 'restored', 'updated', 'unchanged'],
      description:
        'created (201): new; restored: back from the archive (a new version only if what an agent reads changed); updated: a new version; unchanged: nothing an agent reads changed',
    },
    schema: SCHEMA_CHOICE,
    quality: { ...QUALITY, description: "the registered definition judged against the project's other tools" },
  },
} as const;

export const BULK_REGISTRATION_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: ['tools'],
  properties: { tools: { type: 'array', items: REGISTRATION_RESPONSE, description: 'one result per tool, in request order' } },
} as const;

export const DESCRIPTION_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'version', 'description', 'baseDescription', 'warnings', 'parameters'],
  properties: {
    name: TOOL_NAME,
    version: VERSION,
    description: { type: 'string', description: 'the base description followed by the active warnings' },
    baseDescription: { type: 'string' },
    warnings: { type: 'array', items: SERVED_WARNING },
    parameters: JSON_SCHEMA,
    guard: { ...GUARD_SECTION, description: `${GUARD_SECTION.description}; absent on a pinned ?version=` },
  },
} as const;

const closedTool = (properties: Record<string, object>) => ({
  type: 'object',
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
});
/** One listed tool in each `format`; the descriptions carry the active warnings. */
const LISTED_TOOL = {
  anyOf: [
    closedTool({ ...DESCRIPTION_RESPONSE.properties, metadata: { type: 'object', nullable: true } }),
    closedTool({
      type: { type: 'string', enum: ['function'] },
      function: closedTool({ name: TOOL_NAME, description: { type: 'string' }, parameters: JSON_SCHEMA }),
    }),
    closedTool({ name: TOOL_NAME, description: { type: 'string' }, input_schema: JSON_SCHEMA }),
    closedTool({ name: TOOL_NAME, description: { type: 'string' }, inputSchema: JSON_SCHEMA }),
    closedTool({ name: TOOL_NAME, description: { type: 'string' }, schema: JSON_SCHEMA }),
  ],
  description: "raw: the description view with metadata; openai, anthropic, mcp, langchain: that framework's tool shape",
} as const;

/** A project-level note for people, beside the tools: what the nightly saw that no tool's warning can carry. */
const PROJECT_NOTE = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'subject', 'text', 'evidence', 'updatedAt'],
  properties: {
    kind: { type: 'string', description: 'unknown_tool: calls to a name that is no registered tool and close to none' },
    subject: { type: 'string', description: 'what the note is about, e.g. the tool name that was called' },
    text: { type: 'string' },
    evidence: EVIDENCE,
    updatedAt: DATE_TIME,
  },
} as const;

export const TOOL_LIST_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: ['format', 'tools', 'notes', 'quality', 'nextCursor'],
  properties: {
    format: { type: 'string', enum: [...TOOL_FORMATS] },
    tools: { type: 'array', items: LISTED_TOOL, description: 'this page of the tools, by name' },
    notes: { type: 'array', items: PROJECT_NOTE, description: 'for people, never for the model: pass only `tools` to it' },
    quality: {
      type: 'array',
      description:
        "for people: each of this page's tools, its own description and schema judged against the project's other tools, worst score first",
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['tool', 'score', 'findings'],
        properties: { tool: TOOL_NAME, ...QUALITY.properties },
      },
    },
    nextCursor: NEXT_CURSOR,
  },
} as const;

export const VALIDATION_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: ['valid', 'errors', 'suggestion', 'checked', 'reason'],
  properties: {
    valid: { type: 'boolean', description: 'true also when the arguments could not be checked (see checked)' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'category', 'subtype', 'path', 'message'],
        properties: {
          kind: {
            type: 'string',
            enum: ['schema', 'beyond_learned_limit'],
            description: 'schema: the registered schema refuses it; beyond_learned_limit: the schema allows it, but such values failed',
          },
          category: { type: 'string', enum: [...CATEGORIES] },
          subtype: { type: 'string', nullable: true, enum: [...SUBTYPES, null] },
          path: { type: 'string', description: 'JSON Pointer into the arguments; "" for the arguments as a whole' },
          message: { type: 'string' },
          limit: {
            type: 'object',
            additionalProperties: false,
            required: ['bound', 'value', 'isInclusive'],
            description: 'beyond_learned_limit only: values above (upper) or below (lower) `value` fail; `value` too when isInclusive',
            properties: {
              bound: { type: 'string', enum: ['upper', 'lower'] },
              value: { type: 'number' },
              isInclusive: { type: 'boolean' },
            },
          },
          evidenceCount: {
            type: 'integer',
            minimum: 0,
            description: 'beyond_learned_limit only: the failed calls the limit was learned from',
          },
        },
      },
    },
    suggestion: { type: 'object', nullable: true, description: 'corrected arguments, when a correction is safe' },
    checked: {
      type: 'boolean',
      description:
        'false when the schema could not check these arguments: this call (or one at least as large, within the cool-down) exceeded the budget, or the schema is unusable; not checked is not valid',
    },
    reason: {
      type: 'string',
      nullable: true,
      description: 'why the arguments were not checked ("schema too expensive: ..."); null when checked',
    },
    incomplete: {
      type: 'string',
      description:
        'only when the answer leaves something out to keep the work of the call bounded: unknown names past the limit get no intended name, errors past the limit are not listed, no suggestion once the budget is spent',
    },
  },
} as const;

export const WARNINGS_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: ['warnings'],
  properties: { warnings: { type: 'array', items: WARNING } },
} as const;

export const WARNING_CHANGE_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: ['warning', 'version'],
  properties: { warning: WARNING, version: { ...VERSION, description: 'the description version with this change' } },
} as const;
