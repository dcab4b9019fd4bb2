import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { eventSchema } from '../ingest/event.schemas';
import { ERROR_RESPONSE } from './dashboard.openapi-schemas';

type Operation = { parameters?: unknown[]; requestBody?: unknown; responses?: Record<string, unknown>; summary?: string; security?: unknown[] };
interface RouteSchemas {
  summary: string;
  query?: Record<string, object>;
  body?: object;
  status?: number;
  response: object | null;
  isPublic?: boolean;
}

const dateTime = { type: 'string', format: 'date-time' } as const;
const nextCursor = { type: 'string', nullable: true } as const;
const page = (item: object) => ({ type: 'object', properties: { items: { type: 'array', items: item }, nextCursor } });
const pageQuery = { cursor: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 } };
const { if: _if, then: _then, ...eventBody } = eventSchema;
const STORED_EVENT = {
  type: 'object',
  properties: {
    ...eventBody.properties,
    error: { type: 'object', nullable: true, properties: { type: { type: 'string', nullable: true }, message: { type: 'string' }, stack: { type: 'string', nullable: true } } },
    receivedAt: dateTime,
    storedAt: dateTime,
    category: { type: 'string', nullable: true },
    subtype: { type: 'string', nullable: true },
    argumentPath: { type: 'string', nullable: true },
    fingerprint: { type: 'string', nullable: true },
    errorGroupId: { type: 'string', nullable: true },
    evidence: { type: 'string', nullable: true },
    wrongArgument: { type: 'string', nullable: true },
    intendedArgument: { type: 'string', nullable: true },
    offendingValue: { type: 'number', nullable: true },
    arrayForScalar: { type: 'boolean' },
  },
};
const ACCEPTED = {
  type: 'object',
  properties: {
    accepted: { type: 'integer' },
    ids: { type: 'array', items: { type: 'string' } },
    rejected: { type: 'array', items: { type: 'object', properties: { index: { type: 'integer' }, errors: { type: 'array', items: { type: 'object' } } } } },
  },
};
const RECOMMENDATION = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    tool: { type: 'string' },
    kind: { type: 'string' },
    evidenceKey: { type: 'string' },
    text: { type: 'string' },
    evidence: { type: 'object' },
    confidence: { type: 'number' },
    status: { enum: ['proposed', 'applied', 'dismissed'] },
    warningId: { type: 'string', nullable: true },
    appliedVersion: { type: 'integer', nullable: true },
    appliedAt: { ...dateTime, nullable: true },
    effect: {
      type: 'object',
      nullable: true,
      description: "the applied warning's measured effect: {verdict: helped|no_effect|worse|not_enough_data, method, withWarning, withoutWarning, relativeChange, ...}",
    },
  },
};
const POLICY = {
  type: 'object',
  additionalProperties: false,
  required: ['autoApply', 'minOccurrences', 'minShare', 'autoApplyKinds', 'autoRetire'],
  properties: {
    autoApply: { type: 'boolean' },
    minOccurrences: { type: 'integer', minimum: 1 },
    minShare: { type: 'number', minimum: 0, maximum: 1 },
    autoApplyKinds: { type: 'array', items: { type: 'string' } },
    autoRetire: { type: 'boolean' },
  },
};
const JOB_RUN = {
  type: 'object',
  properties: {
    id: { type: 'string' }, job: { type: 'string' }, date: { type: 'string', format: 'date' }, trigger: { type: 'string' }, status: { type: 'string' },
    counts: { type: 'object', nullable: true }, error: { type: 'string', nullable: true }, startedAt: dateTime, finishedAt: { ...dateTime, nullable: true },
  },
};
const TOOL_DEFINITION = {
  type: 'object',
  required: ['description', 'parameters'],
  properties: { name: { type: 'string' }, description: { type: 'string' }, parameters: { type: 'object', description: 'JSON Schema of the arguments' }, metadata: { type: 'object' } },
};
const WARNING = { type: 'object', properties: { id: { type: 'string' }, kind: { type: 'string' }, text: { type: 'string' }, evidence: { type: 'object' }, status: { type: 'string' }, source: { type: 'string' } } };
const DESCRIPTION = {
  type: 'object',
  properties: { name: { type: 'string' }, version: { type: 'integer' }, description: { type: 'string' }, baseDescription: { type: 'string' }, parameters: { type: 'object' }, warnings: { type: 'array', items: WARNING } },
};
const DEAD_LETTER = { type: 'object', properties: { id: { type: 'string' }, originalJobId: { type: 'string' }, events: { type: 'integer' }, failedReason: { type: 'string' }, attemptsMade: { type: 'integer' }, failedAt: dateTime } };
const HEALTH = { type: 'object', properties: { status: { type: 'string' }, checks: { type: 'object', additionalProperties: { enum: ['up', 'down'] } } } };

/**
 * Request and response schemas of the routes other features own, keyed by "METHOD /path" as the document names them.
 * Their controllers take `unknown` bodies validated by Ajv, so nothing in their types tells @nestjs/swagger the shape.
 * A route missing here and undecorated has no response schema, and test/e2e/dashboard-openapi.e2e-spec.ts fails.
 */
const ROUTE_SCHEMAS: Record<string, RouteSchemas> = {
  'post /v1/events': { summary: 'Report tool calls: one event or {events: [...]}', body: { oneOf: [eventBody, { type: 'object', properties: { events: { type: 'array', minItems: 1, maxItems: 1000, items: eventBody } } }] }, status: 202, response: ACCEPTED },
  'get /v1/events': {
    summary: 'Stored events, newest first',
    query: { tool: { type: 'string' }, status: { enum: ['success', 'error'] }, category: { type: 'string' }, agent: { type: 'string' }, model: { type: 'string' }, from: dateTime, to: dateTime, ...pageQuery },
    response: page(STORED_EVENT),
  },
  'get /v1/events/{id}': { summary: 'One stored event with its diagnosis', response: STORED_EVENT },
  'post /v1/traces': { summary: 'OTLP/HTTP JSON traces; tool spans become events', body: { type: 'object', properties: { resourceSpans: { type: 'array', items: { type: 'object' } } } }, response: { type: 'object', properties: { partialSuccess: { type: 'object' } } } },
  'get /v1/admin/dead-letters': { summary: 'Batches that failed every attempt', response: { type: 'object', properties: { items: { type: 'array', items: DEAD_LETTER } } } },
  'post /v1/admin/dead-letters/{id}/replay': { summary: 'Put a dead-lettered batch back on the queue', status: 202, response: { type: 'object', properties: { replayedAs: { type: 'string' } } } },
  'post /v1/jobs/nightly': { summary: 'Run the nightly analytics of this project for one UTC day now', query: { date: { type: 'string', format: 'date' } }, response: JOB_RUN },
  'get /v1/jobs': { summary: 'Every nightly run, newest first', query: pageQuery, response: page(JOB_RUN) },
  'get /v1/recommendations': { summary: 'What the nightly job learned, with the measured effect of applied warnings', query: { status: { enum: ['proposed', 'applied', 'dismissed'] }, tool: { type: 'string' }, ...pageQuery }, response: page(RECOMMENDATION) },
  'post /v1/recommendations/{id}/apply': { summary: 'Apply a recommendation as a warning (new description version)', response: RECOMMENDATION },
  'post /v1/recommendations/{id}/dismiss': { summary: 'Dismiss a recommendation (an applied warning is retired)', response: RECOMMENDATION },
  'get /v1/policy': { summary: 'The auto-apply policy', response: POLICY },
  'put /v1/policy': { summary: 'Set the auto-apply policy', body: POLICY, response: POLICY },
  'put /v1/tools/{name}': { summary: 'Register or update a tool', body: TOOL_DEFINITION, response: { type: 'object', properties: { status: { type: 'string' }, name: { type: 'string' }, version: { type: 'integer' } } } },
  'post /v1/tools:bulk': { summary: 'Register many tools', body: { type: 'object', properties: { tools: { type: 'array', maxItems: 500, items: TOOL_DEFINITION } } }, response: { type: 'object', properties: { tools: { type: 'array', items: { type: 'object' } } } } },
  'get /v1/tools': { summary: 'Every active tool with its augmented description', query: { format: { enum: ['openai', 'anthropic', 'mcp', 'toolcoach'] } }, response: { type: 'object', properties: { format: { type: 'string' }, tools: { type: 'array', items: { type: 'object' } } } } },
  'get /v1/tools/{name}/description': { summary: 'The live description with its warnings (or a pinned version)', query: { version: { type: 'integer', minimum: 1 } }, response: DESCRIPTION },
  'delete /v1/tools/{name}': { summary: 'Archive a tool', status: 204, response: null },
  'post /v1/tools/{name}/validate': { summary: 'Check arguments against the tool schema', body: { type: 'object', required: ['arguments'], properties: { arguments: {} } }, response: { type: 'object', properties: { valid: { type: 'boolean' }, findings: { type: 'array', items: { type: 'object' } } } } },
  'get /v1/tools/{name}/warnings': { summary: "A tool's warnings", response: { type: 'object', properties: { warnings: { type: 'array', items: WARNING } } } },
  'post /v1/tools/{name}/warnings': { summary: 'Add a warning by hand', body: { type: 'object', required: ['text'], properties: { text: { type: 'string', maxLength: 500 }, kind: { type: 'string' }, evidenceKey: { type: 'string' }, evidence: { type: 'object' } } }, status: 201, response: { type: 'object', properties: { warning: WARNING, version: { type: 'integer' } } } },
  'post /v1/tools/{name}/warnings/{id}/dismiss': { summary: 'Dismiss a warning', body: { type: 'object', properties: { reason: { type: 'string', maxLength: 500 } } }, response: { type: 'object', properties: { warning: WARNING, version: { type: 'integer' } } } },
  'post /v1/tools/{name}/warnings/{id}/reinstate': { summary: 'Reinstate a dismissed warning', response: { type: 'object', properties: { warning: WARNING, version: { type: 'integer' } } } },
  'get /healthz': { summary: 'The process is up', response: HEALTH, isPublic: true },
  'get /readyz': { summary: 'Postgres and Redis are reachable (503 naming the one that is not)', response: HEALTH, isPublic: true },
};

/** Builds the document from the controllers, completes it with ROUTE_SCHEMAS, serves it at /openapi.json and a UI at /docs. */
export function setUpOpenApi(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('toolcoach')
    .setDescription('Tool-call events in, failure categories, error groups, rollup-backed stats and learned warnings out.')
    .setVersion('1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'a project API key' })
    .build();
  const document = describeRoutes(SwaggerModule.createDocument(app, config));
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', yamlDocumentUrl: 'openapi.yaml' });
  return document;
}

export function describeRoutes(document: OpenAPIObject): OpenAPIObject {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item) as Array<[string, Operation]>) {
      const schemas = ROUTE_SCHEMAS[`${method} ${path}`];
      if (!schemas || hasSuccessResponse(operation)) continue;
      operation.summary ??= schemas.summary;
      if (!schemas.isPublic) operation.security = [{ bearer: [] }];
      const parameters = (operation.parameters ?? []) as Array<{ name: string; in: string }>;
      for (const [name, schema] of Object.entries(schemas.query ?? {})) {
        if (!parameters.some((p) => p.in === 'query' && p.name === name)) parameters.push({ name, in: 'query', required: false, schema } as never);
      }
      operation.parameters = parameters;
      if (schemas.body) operation.requestBody = { required: true, content: { 'application/json': { schema: schemas.body } } };
      const status = String(schemas.status ?? 200);
      operation.responses = {
        ...Object.fromEntries(Object.entries(operation.responses ?? {}).filter(([code]) => !code.startsWith('2'))),
        [status]: schemas.response ? { description: 'OK', content: { 'application/json': { schema: schemas.response } } } : { description: 'No content' },
        ...(schemas.isPublic ? {} : { '400': errorResponse('Invalid input; `details` names each bad field'), '401': errorResponse('Missing, unknown or revoked API key') }),
      };
    }
  }
  return document;
}

function hasSuccessResponse(operation: Operation): boolean {
  return Object.entries(operation.responses ?? {}).some(([code, response]) => code.startsWith('2') && (response as { content?: unknown }).content !== undefined);
}

function errorResponse(description: string) {
  return { description, content: { 'application/json': { schema: ERROR_RESPONSE } } };
}
