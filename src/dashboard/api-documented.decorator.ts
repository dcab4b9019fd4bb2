import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiParam, ApiQuery, ApiResponse, type SchemaObject } from '@nestjs/swagger';
import { ERROR_RESPONSE } from './dashboard.openapi-schemas';

export interface RouteDoc {
  summary: string;
  /** The route's Ajv query schema: each property becomes an optional query parameter. */
  query?: { properties: Record<string, object> };
  /** The route's Ajv body schema. */
  body?: object;
  response: object;
  status?: number;
  params?: readonly string[];
}

/**
 * Our controllers take `unknown` input validated by Ajv, so @nestjs/swagger cannot infer schemas from types: this
 * describes a route in OpenAPI from the same JSON Schemas Ajv validates with.
 */
export function ApiDocumented(doc: RouteDoc): MethodDecorator {
  const status = doc.status ?? 200;
  return applyDecorators(
    ApiOperation({ summary: doc.summary }),
    ApiBearerAuth(),
    ...(doc.params ?? []).map((name) => ApiParam({ name, required: true, schema: { type: 'string' } })),
    ...Object.entries(doc.query?.properties ?? {}).map(([name, schema]) =>
      ApiQuery({ name, required: false, schema: schema as SchemaObject }),
    ),
    ...(doc.body ? [ApiBody({ schema: doc.body as SchemaObject })] : []),
    ApiResponse({ status, description: 'OK', schema: doc.response as SchemaObject }),
    ApiResponse({ status: 400, description: 'Invalid input; `details` names each bad field', schema: ERROR_RESPONSE as SchemaObject }),
    ApiResponse({ status: 401, description: 'Missing, unknown or revoked API key', schema: ERROR_RESPONSE as SchemaObject }),
  );
}
