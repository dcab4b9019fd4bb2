import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { startTestApp, TestApp } from '../support/test-app';

// Served by the app but not part of the API: the document itself, its UI and the web dashboard's static files.
const NOT_API = [/^\/docs(\/|$)/, /^\/openapi\.(json|yaml)$/, /^\/dashboard(\/|$)/];

/**
 * Every route Fastify actually serves, as "METHOD /path" in OpenAPI's spelling (`:name` -> `{name}`), read from the
 * router's own table rather than from Nest's metadata, so a route added by any means is seen.
 */
function registeredRoutes(app: NestFastifyApplication): string[] {
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
    const path = stack.join('').replace(/\/+/g, '/');
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

describe('OpenAPI document', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('is served at /openapi.json without a key and lists every route of the app with its response schema', async () => {
    const response = await t.request('GET', '/openapi.json', { key: null });
    expect(response.status).toBe(200);
    const document = response.body;
    expect(document.openapi).toMatch(/^3\./);
    const routes = registeredRoutes(t.app).filter((route) => !NOT_API.some((pattern) => pattern.test(route.split(' ')[1])));
    expect(routes.length).toBeGreaterThan(20);
    const undocumented: string[] = [];
    const withoutSchema: string[] = [];
    for (const route of routes) {
      const [method, path] = route.split(' ');
      const operation = document.paths[toOpenApiPath(path)]?.[method.toLowerCase()];
      if (!operation) {
        undocumented.push(route);
        continue;
      }
      const success = Object.entries(operation.responses ?? {}).filter(([code]) => code.startsWith('2'));
      const isDescribed = success.some(([code, r]: [string, any]) => code === '204' || r.content?.['application/json']?.schema);
      if (!isDescribed) withoutSchema.push(route);
    }
    expect(undocumented).toEqual([]);
    expect(withoutSchema).toEqual([]);
  });

  it('describes the dashboard routes with their query parameters and request body', async () => {
    const { body: document } = await t.request('GET', '/openapi.json', { key: null });
    const overview = document.paths['/v1/stats/overview'].get;
    expect(overview.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(['from', 'to', 'bucket']));
    expect(overview.responses['200'].content['application/json'].schema.properties.series).toBeDefined();
    const patch = document.paths['/v1/error-groups/{id}'].patch;
    expect(patch.requestBody.content['application/json'].schema.properties.status.enum).toEqual(['open', 'resolved', 'ignored']);
    const putPolicy = document.paths['/v1/policy'].put;
    expect(putPolicy.requestBody.content['application/json'].schema.required).toContain('autoApply');
    for (const path of ['/v1/events', '/v1/recommendations', '/v1/jobs', '/v1/tools/{name}/error-groups', '/healthz', '/readyz']) {
      expect(document.paths[path]).toBeDefined();
    }
  });

  it('serves a browsable UI at /docs and the dashboard page at /dashboard without a key', async () => {
    const docs = await fetch(`${t.baseUrl}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger-ui');
    const page = await fetch(`${t.baseUrl}/dashboard`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const chart = await fetch(`${t.baseUrl}/dashboard/assets/uPlot.iife.min.js`);
    expect(chart.status).toBe(200);
    expect((await fetch(`${t.baseUrl}/dashboard/assets/..%2Fpackage.json`)).status).toBe(404);
  });
});
