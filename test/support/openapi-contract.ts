import { NestFastifyApplication } from '@nestjs/platform-fastify';
import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { TestResponse } from './test-app';

interface DocumentedResponse {
  description?: string;
  content?: { 'application/json'?: { schema?: object }; 'application/x-ndjson'?: { schema?: object } };
}

export interface OpenApiOperation {
  summary?: string;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: object }>;
  requestBody?: { content: { 'application/json': { schema: object } } };
  responses?: Record<string, DocumentedResponse>;
  security?: unknown[];
}

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OpenApiOperation>>;
}

/**
 * Every route Fastify actually serves, as "METHOD /path" in OpenAPI's spelling (`:name` -> `{name}`), read from the
 * router's own table rather than from Nest's metadata, so a route added by any means is seen.
 */
export function registeredRoutes(app: NestFastifyApplication): string[] {
  const tree = app.getHttpAdapter().getInstance().printRoutes({ commonPrefix: false });
  const routes: string[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│\s]*)[├└]── (.*?)(?: \(([^)]*)\))?$/.exec(line);
    if (!match) continue;
    const depth = Math.floor(match[1].length / 4);
    stack.length = depth;
    stack.push(match[2]);
    if (!match[3]) continue;
    const path = toOpenApiPath(stack.join('').replace(/\/+/g, '/'));
    for (const method of match[3].split(',').map((m) => m.trim())) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      routes.push(`${method} ${path}`);
    }
  }
  return routes;
}

function toOpenApiPath(path: string): string {
  // Fastify prints the escaped `::` of a literal colon as a single colon
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (whole, name, offset) => (path[offset - 1] === '/' ? `{${name}}` : whole));
}

/**
 * Checks real answers against the document the app serves: the status must be one of the route's documented 2xx
 * statuses and the body must match the schema documented for it (no body where none is documented).
 */
export class OpenApiContract {
  private readonly ajv = new Ajv({ allErrors: true, strict: true });
  private readonly validators = new Map<object, ValidateFunction>();
  /** Routes ("METHOD /path/{param}") with at least one real answer checked. */
  readonly checkedRoutes = new Set<string>();

  constructor(readonly document: OpenApiDocument) {
    addFormats(this.ajv);
  }

  operation(route: string): OpenApiOperation | undefined {
    const [method, path] = route.split(' ');
    return this.document.paths[path]?.[method.toLowerCase()];
  }

  /** Throws, naming the route and every mismatch, unless the answer is one the document promises. */
  check(route: string, response: TestResponse): void {
    const operation = this.operation(route);
    if (!operation) throw new Error(`${route} is not in the document`);
    const documented = Object.entries(operation.responses ?? {}).filter(([code]) => code.startsWith('2'));
    const match = documented.find(([code]) => code === String(response.status));
    if (!match) {
      const codes = documented.map(([code]) => code).join(', ');
      throw new Error(`${route} answered ${response.status}, documented ${codes || 'no 2xx'}: ${preview(response.body)}`);
    }
    const schema = match[1].content?.['application/json']?.schema;
    if (!schema) {
      if (response.body !== null)
        throw new Error(`${route} documents no body for ${response.status} but answered ${preview(response.body)}`);
    } else {
      const validate = this.validatorOf(schema);
      if (!validate(response.body)) {
        const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
        throw new Error(
          `${route} answered a body its documented schema refuses:\n  ${problems.join('\n  ')}\nbody: ${preview(response.body)}`,
        );
      }
    }
    this.checkedRoutes.add(route);
  }

  /** As check, for a route documented as JSON lines (application/x-ndjson): every line must match the line schema. */
  checkLines(route: string, status: number, text: string): void {
    const schema = this.operation(route)?.responses?.[String(status)]?.content?.['application/x-ndjson']?.schema;
    if (!schema) throw new Error(`${route} documents no JSON lines for ${status}`);
    const validate = this.validatorOf(schema);
    for (const line of text.split('\n').filter((l) => l !== '')) {
      if (!validate(JSON.parse(line)))
        throw new Error(`${route} answered a line its schema refuses: ${JSON.stringify(validate.errors)}: ${line}`);
    }
    this.checkedRoutes.add(route);
  }

  /** True when `body` matches the schema documented for `route`'s `status`; for tests of the checker itself. */
  accepts(route: string, status: number, body: unknown): boolean {
    const schema = this.operation(route)?.responses?.[String(status)]?.content?.['application/json']?.schema;
    if (!schema) throw new Error(`${route} documents no schema for ${status}`);
    return this.validatorOf(schema)(body);
  }

  private validatorOf(schema: object): ValidateFunction {
    let validate = this.validators.get(schema);
    if (!validate) this.validators.set(schema, (validate = this.ajv.compile(schema)));
    return validate;
  }
}

function preview(body: unknown): string {
  return JSON.stringify(body)?.slice(0, 2000) ?? String(body);
}
