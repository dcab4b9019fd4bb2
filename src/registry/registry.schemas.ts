import { ApiError, FieldError } from '../infra/http/api-error';
import { readCursor } from '../infra/http/cursor';
import { compileQueryValidator } from '../infra/http/query-validator';
import { ajvFor, toFieldErrors } from '../infra/validation/ajv-factory';
import { TOOL_FORMATS, type JsonObject, type RegistrationCandidate, type ToolDefinition, type ToolFormat } from './registry.types';
import {
  checkDescription,
  checkMetadata,
  isObject,
  MAX_DESCRIPTION_CHARS,
  MAX_METADATA_BYTES,
  normalizeToolDefinition,
  TOOL_NAME_PATTERN,
} from './tools/tool-definition';
import type { ToolListPageQuery } from './serving/tool-list-page';

// Request bodies and queries of the registry API, checked once at the edge; every reader throws a 400 naming each
// bad field, or returns typed input.

export const MAX_TOOLS_PER_BULK = 500;
const MAX_WARNING_TEXT_CHARS = 500;

/** The shape readToolBody checks field by field (its messages name each field), for the OpenAPI document. */
export const TOOL_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['description', 'parameters'],
  properties: {
    description: { type: 'string', maxLength: MAX_DESCRIPTION_CHARS },
    parameters: { type: 'object', description: 'JSON Schema of the arguments' },
    metadata: { type: 'object', nullable: true, description: `at most ${MAX_METADATA_BYTES} bytes as JSON` },
  },
} as const;

/** PUT /v1/tools/:name {description, parameters, metadata?}; its schema is checked by SchemaAdmissionService. */
export function readToolBody(name: string, body: unknown): RegistrationCandidate {
  requireToolName(name);
  if (!isObject(body)) throw invalidBody([{ path: '', message: 'must be an object {description, parameters, metadata?}' }]);
  const errors: FieldError[] = [
    ...checkDescription(body.description, '/description', true),
    ...checkMetadata(body.metadata, '/metadata'),
    ...Object.keys(body)
      .filter((field) => !['description', 'parameters', 'metadata'].includes(field))
      .map((field) => ({ path: `/${field}`, message: 'is not a known field' })),
  ];
  if (body.parameters === undefined) errors.push({ path: '/parameters', message: 'is required: the JSON Schema of the arguments' });
  if (errors.length > 0) throw invalidBody(errors);
  const definition: ToolDefinition = { name, description: body.description as string, parameters: body.parameters as JsonObject };
  if (body.metadata !== undefined) definition.metadata = body.metadata as JsonObject | null;
  return { definition, parametersPath: '/parameters' };
}

/** The shapes readBulkBody accepts, for the OpenAPI document; each tool is normalized by normalizeToolDefinition. */
export const BULK_BODY_SCHEMA = {
  description:
    "an array of tools or {\"tools\": [...]}; each tool in our shape {name, description, parameters, metadata?}, OpenAI's, Anthropic's or MCP's",
  oneOf: [
    { type: 'array', minItems: 1, maxItems: MAX_TOOLS_PER_BULK, items: { type: 'object' } },
    {
      type: 'object',
      required: ['tools'],
      properties: { tools: { type: 'array', minItems: 1, maxItems: MAX_TOOLS_PER_BULK, items: { type: 'object' } } },
    },
  ],
} as const;

/**
 * POST /v1/tools:bulk: an array of tools, or {tools: [...]}, each in any accepted shape. All or nothing; the schemas
 * are checked by SchemaAdmissionService.
 */
export function readBulkBody(body: unknown): RegistrationCandidate[] {
  const isEnvelope = isObject(body) && Array.isArray(body.tools);
  const items = Array.isArray(body) ? body : isEnvelope ? (body.tools as unknown[]) : null;
  const base = isEnvelope ? '/tools' : '';
  if (!items) throw invalidBody([{ path: '', message: 'must be an array of tools or {"tools": [...]}' }]);
  if (items.length === 0) throw invalidBody([{ path: base, message: 'must hold at least one tool' }]);
  if (items.length > MAX_TOOLS_PER_BULK) {
    throw new ApiError(413, 'too_many_tools', `A request may register at most ${MAX_TOOLS_PER_BULK} tools`);
  }
  const fieldErrors: FieldError[] = [];
  const candidates: RegistrationCandidate[] = [];
  const seen = new Map<string, number>();
  items.forEach((item, index) => {
    const normalized = normalizeToolDefinition(item, `${base}/${index}`);
    if (!normalized.ok) return fieldErrors.push(...normalized.errors);
    const { definition } = normalized;
    const first = seen.get(definition.name);
    if (first !== undefined) {
      return fieldErrors.push({ path: `${base}/${index}`, message: `registers "${definition.name}" again (first at index ${first})` });
    }
    seen.set(definition.name, index);
    candidates.push({ definition, parametersPath: normalized.parametersPath });
  });
  if (fieldErrors.length > 0) throw invalidBody(fieldErrors);
  return candidates;
}

export interface ManualWarningInput {
  text: string;
  kind: string;
  evidenceKey: string | null;
  evidence: { count: number; firstSeen: string | null; lastSeen: string | null; exampleEventIds: string[] };
  /** Start the new version as a canary (docs/rollout.md) instead of serving it to every agent at once. */
  canary: boolean;
}

export const WARNING_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['text'],
  properties: {
    text: { type: 'string', minLength: 1, maxLength: MAX_WARNING_TEXT_CHARS },
    kind: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' },
    evidenceKey: { type: 'string', minLength: 1, maxLength: 500 },
    evidence: {
      type: 'object',
      additionalProperties: false,
      properties: {
        count: { type: 'integer', minimum: 0 },
        firstSeen: { type: 'string', format: 'date-time' },
        lastSeen: { type: 'string', format: 'date-time' },
        exampleEventIds: { type: 'array', maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 128 } },
      },
    },
    canary: {
      type: 'boolean',
      description: "serve the new version to the project's rollout share of agents first, promoted or rolled back by the nightly",
    },
  },
} as const;
const validateWarningBody = ajvFor('body').compile(WARNING_BODY_SCHEMA);

/** POST /v1/tools/:name/warnings {text, kind?, evidenceKey?, evidence?} */
export function readWarningBody(body: unknown): ManualWarningInput {
  if (!validateWarningBody(body)) throw invalidBody(toFieldErrors(validateWarningBody.errors, ''));
  const input = body as {
    text: string;
    kind?: string;
    evidenceKey?: string;
    evidence?: Partial<ManualWarningInput['evidence']>;
    canary?: boolean;
  };
  return {
    text: input.text.trim(),
    kind: input.kind ?? 'manual',
    evidenceKey: input.evidenceKey ?? null,
    evidence: {
      count: input.evidence?.count ?? 0,
      firstSeen: input.evidence?.firstSeen ?? null,
      lastSeen: input.evidence?.lastSeen ?? null,
      exampleEventIds: input.evidence?.exampleEventIds ?? [],
    },
    canary: input.canary ?? false,
  };
}

export const DISMISS_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: { reason: { type: 'string', maxLength: 500 } },
} as const;
const validateDismissBody = ajvFor('body').compile(DISMISS_BODY_SCHEMA);

/** POST .../dismiss {reason?}; an empty body is fine. */
export function readDismissBody(body: unknown): { reason: string | null } {
  const value = body ?? {};
  if (!validateDismissBody(value)) throw invalidBody(toFieldErrors(validateDismissBody.errors, ''));
  return { reason: (value as { reason?: string }).reason ?? null };
}

/** The shape readValidateBody checks, for the OpenAPI document. */
export const VALIDATE_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['arguments'],
  properties: { arguments: { description: 'the arguments the model produced: an object, or a JSON string of one' } },
} as const;

/** POST /v1/tools/:name/validate {arguments} */
export function readValidateBody(body: unknown): { arguments: unknown } {
  if (!isObject(body) || !('arguments' in body)) {
    throw invalidBody([{ path: '/arguments', message: 'is required: the arguments the model produced' }]);
  }
  const extra = Object.keys(body).filter((field) => field !== 'arguments');
  if (extra.length > 0) throw invalidBody(extra.map((field) => ({ path: `/${field}`, message: 'is not a known field' })));
  return { arguments: body.arguments };
}

export function requireToolName(name: string): void {
  if (!TOOL_NAME_PATTERN.test(name)) {
    throw new ApiError(400, 'invalid_tool_name', 'Tool names are 1 to 200 letters, digits, _ . or -', {
      details: [{ path: '/params/name', message: 'must be 1 to 200 letters, digits, _ . or -' }],
    });
  }
}

/** ?session= / ?agent=: the sticky id of a canary's assignment, for clients that cannot send the X-Toolcoach-* headers. */
const STICKY_ID_QUERY = {
  session: { type: 'string', maxLength: 1000, description: 'sticky id for canary assignment (else X-Toolcoach-Session)' },
  agent: { type: 'string', maxLength: 1000, description: 'sticky id when there is no session (else X-Toolcoach-Agent)' },
} as const;

export interface StickyIdQuery {
  session?: string;
  agent?: string;
}

/** A page of `GET /v1/tools` holds at most this many tools (and MAX_PAGE_BYTES); the default, so a project within it is one page. */
export const MAX_TOOLS_PER_LIST_PAGE = 1000;

export const LIST_QUERY_SCHEMA = {
  properties: {
    format: { enum: [...TOOL_FORMATS], default: 'raw' },
    ...STICKY_ID_QUERY,
    cursor: { type: 'string', minLength: 1, maxLength: 400, description: 'nextCursor of the previous page' },
    limit: { type: 'integer', minimum: 1, maximum: MAX_TOOLS_PER_LIST_PAGE, default: MAX_TOOLS_PER_LIST_PAGE },
    names: {
      type: 'string',
      maxLength: 10_000,
      pattern: '^[A-Za-z0-9_.-]{1,200}(,[A-Za-z0-9_.-]{1,200})*$',
      description: 'only these tools, comma-separated (names unknown to the project are left out)',
    },
  },
} as const;
const validateListQuery = compileQueryValidator<{ format: ToolFormat; cursor?: string; limit: number; names?: string } & StickyIdQuery>(
  LIST_QUERY_SCHEMA,
);

/** The format, the sticky id and the page asked for, or 400 naming each bad parameter (a forged cursor included). */
export function readListQuery(raw: unknown): { format: ToolFormat; page: ToolListPageQuery } & StickyIdQuery {
  const { format, session, agent, cursor, limit, names } = validateListQuery(raw);
  const after = cursor === undefined ? undefined : readCursor(cursor, toolNameOfCursor);
  return { format, session, agent, page: { after, limit, names: names === undefined ? undefined : new Set(names.split(',')) } };
}

function toolNameOfCursor(value: unknown): string | undefined {
  return Array.isArray(value) && value.length === 1 && typeof value[0] === 'string' && TOOL_NAME_PATTERN.test(value[0])
    ? value[0]
    : undefined;
}

export const VALIDATE_QUERY_SCHEMA = {
  properties: {
    checks: {
      enum: ['all', 'schema'],
      default: 'all',
      description: "schema: only the registered schema; all: also the limits learned from this tool's failed calls",
    },
  },
} as const;
export const readValidateQuery = compileQueryValidator<{ checks: 'all' | 'schema' }>(VALIDATE_QUERY_SCHEMA);

export const DESCRIPTION_QUERY_SCHEMA = {
  properties: { version: { type: 'integer', minimum: 1, maximum: 2147483647 }, ...STICKY_ID_QUERY },
} as const;
export const readDescriptionQuery = compileQueryValidator<{ version?: number } & StickyIdQuery>(DESCRIPTION_QUERY_SCHEMA);

function invalidBody(details: FieldError[]): ApiError {
  return new ApiError(400, 'invalid_body', `Invalid field ${details[0].path || 'body'}: ${details[0].message}`, { details });
}
