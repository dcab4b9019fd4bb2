import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiOperation, ApiQuery, ApiResponse, type SchemaObject } from '@nestjs/swagger';
import { ERROR_RESPONSE, type JsonSchema } from './response.schemas';

export interface RouteContract {
  summary: string;
  /** The schema the route's query validator compiles (compileQueryValidator): each property is a query parameter. */
  query?: { readonly properties: Readonly<Record<string, JsonSchema>>; readonly required?: readonly string[] };
  /** The schema the route validates its body with. */
  body?: JsonSchema;
  /** The schema of every successful answer; null for a route that answers without a body. */
  response: JsonSchema | null;
  /** The success status, 200 unless given; several when the outcome decides (201 created, 200 updated). */
  status?: number | readonly number[];
  /** Served without an API key. */
  isPublic?: boolean;
  /** A binary encoding the route also takes, answering success in it too (OTLP's application/x-protobuf), beside JSON. */
  binaryContentType?: string;
  /** Answers a stream of JSON documents, one per line, in this content type (application/x-ndjson); `response` is a line. */
  linesContentType?: string;
}

/**
 * Documents a route in the OpenAPI document from the JSON Schemas its own feature validates with, and the schema of
 * its answers (which test/e2e/openapi.e2e-spec.ts checks against a real answer). Our controllers take `unknown` input
 * checked by Ajv, so nothing in their types could tell @nestjs/swagger the shapes.
 */
export function ApiRoute(contract: RouteContract): MethodDecorator {
  const statuses = typeof contract.status === 'number' ? [contract.status] : (contract.status ?? [200]);
  const { properties = {}, required = [] } = contract.query ?? {};
  return applyDecorators(
    ApiOperation({ summary: contract.summary }),
    ...(contract.isPublic ? [] : [ApiBearerAuth()]),
    ...Object.entries(properties).map(([name, schema]) => ApiQuery({ name, required: required.includes(name), schema: asSchema(schema) })),
    ...(contract.body ? [ApiBody({ schema: asSchema(contract.body) })] : []),
    // @nestjs/swagger gives every consumed type the one body schema: the binary one says in its description what it is
    ...(contract.binaryContentType ? [ApiConsumes('application/json', contract.binaryContentType)] : []),
    ...statuses.map((status) => successResponse(status, contract)),
    ...(contract.isPublic ? [] : KEYED_ROUTE_ERRORS),
  );
}

function successResponse(status: number, { response: schema, binaryContentType, linesContentType }: RouteContract) {
  if (!schema) return ApiResponse({ status, description: 'Success, no body' });
  if (linesContentType) {
    return ApiResponse({
      status,
      description: 'Success: one JSON document per line',
      content: { [linesContentType]: { schema: asSchema(schema) } },
    });
  }
  if (!binaryContentType) return ApiResponse({ status, description: 'Success', schema: asSchema(schema) });
  const content = { 'application/json': { schema: asSchema(schema) }, [binaryContentType]: { schema: BINARY } };
  return ApiResponse({ status, description: 'Success, in the encoding of the request', content });
}

const BINARY: SchemaObject = { type: 'string', format: 'binary' };

/** What any route behind the API key can answer besides its own errors. */
const KEYED_ROUTE_ERRORS = [
  ApiResponse({ status: 400, description: 'Invalid input; `details` names each bad field', schema: asSchema(ERROR_RESPONSE) }),
  ApiResponse({ status: 401, description: 'Missing, unknown or revoked API key', schema: asSchema(ERROR_RESPONSE) }),
  ApiResponse({
    status: 429,
    description: "Over the key's rate limit, or too many unknown keys from this address",
    schema: asSchema(ERROR_RESPONSE),
  }),
];

/** Our schemas are plain JSON Schema objects; @nestjs/swagger types them as its own SchemaObject. */
function asSchema(schema: JsonSchema): SchemaObject {
  return schema as SchemaObject;
}
