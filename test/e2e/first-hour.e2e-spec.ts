import { startTestApp, TestApp } from '../support/test-app';

/** The stumbles of a newcomer's first hour (issue 21): each answer says what to do next. */
describe('first-hour answers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('redirects / to the dashboard and answers /favicon.ico with an icon', async () => {
    const root = await fetch(`${t.baseUrl}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/dashboard');
    const icon = await fetch(`${t.baseUrl}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(await icon.text()).toMatch(/^<svg /);
  });

  it('answers a body sent without Content-Type: application/json (curl -d) with 415 naming the type to send', async () => {
    const response = await t.request('POST', '/v1/events', {
      rawBody: JSON.stringify({ tool: 'calc', status: 'success' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(415);
    expect(response.body.error).toEqual({ code: 'unsupported_media_type', message: 'Send the body as application/json' });
  });

  it('says the "Bearer " prefix is missing when the key is sent bare, and that the key is missing when nothing is sent', async () => {
    const bare = await t.request('GET', '/v1/events', { key: null, headers: { authorization: t.apiKey } });
    expect(bare.status).toBe(401);
    expect(bare.body.error.message).toBe('The Authorization header lacks the "Bearer " prefix: send "Authorization: Bearer <key>"');
    const missing = await t.request('GET', '/v1/events', { key: null });
    expect(missing.body.error.message).toBe('Missing API key: send "Authorization: Bearer <key>"');
  });

  it('answers a method a known path does not take with 405 and Allow, and an unknown path with 404', async () => {
    const patch = await t.request('PATCH', '/v1/events?limit=1');
    expect(patch.status).toBe(405);
    expect(patch.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(patch.body.error).toEqual({ code: 'method_not_allowed', message: 'PATCH is not supported on /v1/events; use GET, HEAD, POST' });
    const deleteBulk = await t.request('DELETE', '/v1/tools:bulk');
    expect(deleteBulk.status).toBe(405);
    expect(deleteBulk.headers.get('allow')).toBe('POST');
    const getOneTool = await t.request('POST', '/v1/tools/calc');
    expect(getOneTool.status).toBe(405);
    expect(getOneTool.headers.get('allow')).toBe('DELETE, PUT');
    expect((await t.request('GET', '/v1/nothing-here')).status).toBe(404);
    expect((await t.request('GET', '/v1/events/nope')).status).toBe(404);
  });

  it('answers "restored" when an archived tool is registered again', async () => {
    const tool = { description: 'Adds.', parameters: { type: 'object', properties: { a: { type: 'number' } } } };
    expect((await t.request('PUT', '/v1/tools/adder', { body: tool })).body.status).toBe('created');
    expect((await t.request('DELETE', '/v1/tools/adder')).status).toBe(204);
    const restored = await t.request('PUT', '/v1/tools/adder', { body: tool });
    expect(restored.status).toBe(200);
    expect(restored.body).toEqual({
      name: 'adder',
      version: 1,
      status: 'restored',
      quality: expect.objectContaining({ score: expect.any(Number) }),
      schema: { kept: 'current', reason: 'identical', differences: [] },
    });
    expect((await t.request('PUT', '/v1/tools/adder', { body: tool })).body.status).toBe('unchanged');
  });
});
