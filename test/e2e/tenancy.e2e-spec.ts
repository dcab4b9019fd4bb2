import { createHash } from 'node:crypto';
import { anErrorEvent, anEvent } from '../factories/event.factory';
import { eventually, startTestApp, TestApp } from '../support/test-app';

describe('tenancy and secrets', () => {
  let t: TestApp;
  let replica: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_REQUESTS: '0' });
    replica = await startTestApp({ RATE_LIMIT_REQUESTS: '0', ROLES: 'api' }, { sharing: t });
  });
  afterAll(async () => {
    await replica.close();
    await t.close();
  });

  it('stores API keys only as sha256 hashes', async () => {
    const { rows } = await t.db.sql.query('SELECT key_hash, key_prefix FROM api_keys');
    const hash = createHash('sha256').update(t.apiKey).digest('hex');
    expect(rows.map((r) => r.key_hash)).toContain(hash);
    const { rows: clear } = await t.db.sql.query('SELECT count(*)::int AS n FROM api_keys WHERE key_hash = $1 OR key_prefix = $1', [
      t.apiKey,
    ]);
    expect(clear[0].n).toBe(0);
  });

  it('refuses a revoked key at once on every replica, even one that had it cached', async () => {
    const projects = t.app.get(ProjectService);
    const key = await projects.createKeyForProject(
      (await t.db.sql.query('SELECT name FROM projects WHERE id = $1', [t.projectId])).rows[0].name,
      'to-revoke',
    );
    expect((await replica.request('GET', '/v1/events', { key })).status).toBe(200);
    expect((await t.request('GET', '/v1/events', { key })).status).toBe(200);
    expect(await projects.revokeApiKey(key)).toBe(true);
    expect((await t.request('GET', '/v1/events', { key })).status).toBe(401);
    await eventually(async () => ((await replica.request('GET', '/v1/events', { key })).status === 401 ? true : undefined), 2000, 10);
  });

  it('redacts secret-looking argument values server-side before storage', async () => {
    const event = anErrorEvent('Unauthorized', { tool: 'login', arguments: { user: 'bob', password: 'hunter2', max_tokens: 100 } });
    await t.request('POST', '/v1/events', { body: event });
    const stored = await t.storedEvent(event.id as string);
    expect(stored.arguments).toEqual({ user: 'bob', password: '[REDACTED]', max_tokens: 100 });
    const { rows } = await t.db.sql.query(`SELECT count(*)::int AS n FROM events WHERE arguments::text LIKE '%hunter2%'`);
    expect(rows[0].n).toBe(0);
  });

  it("never answers another project with this project's data, on any route", async () => {
    const event = anEvent({ tool: 'tenant_tool' });
    await t.request('POST', '/v1/events', { body: event });
    await t.request('PUT', '/v1/tools/tenant_tool', { body: { description: 'mine', parameters: { type: 'object', properties: {} } } });
    await eventually(async () => ((await t.request('GET', `/v1/events/${event.id}`)).status === 200 ? true : undefined));
    const other = await t.createProject('tenancy-other');
    const asOther = (method: string, path: string, body?: unknown) => t.request(method, path, { key: other.apiKey, body });

    for (const path of [`/v1/events/${event.id}`, '/v1/tools/tenant_tool/description', '/v1/tools/tenant_tool/warnings']) {
      expect([403, 404]).toContain((await asOther('GET', path)).status);
    }
    expect((await asOther('POST', '/v1/tools/tenant_tool/validate', { arguments: {} })).status).toBe(404);
    expect((await asOther('DELETE', '/v1/tools/tenant_tool')).status).toBe(404);
    for (const path of ['/v1/events', '/v1/tools', '/v1/jobs', '/v1/recommendations', '/v1/admin/dead-letters']) {
      const response = await asOther('GET', path);
      expect(response.status).toBe(200);
      expect(JSON.stringify(response.body)).not.toContain('tenant_tool');
    }
    // and the owner still sees it
    expect((await t.request('GET', '/v1/tools/tenant_tool/description')).status).toBe(200);
  });
});

describe('rate limiting per key', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_REQUESTS: '5', RATE_LIMIT_WINDOW_SECONDS: '60' });
  });
  afterAll(() => t.close());

  it('answers 429 with Retry-After past the limit, counting each key on its own', async () => {
    const statuses: number[] = [];
    let limited;
    for (let i = 0; i < 7; i++) {
      const response = await t.request('GET', '/v1/events');
      statuses.push(response.status);
      if (response.status === 429) limited = response;
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited!.body.error.code).toBe('rate_limited');
    const other = await t.createProject('rate-other');
    expect((await t.request('GET', '/v1/events', { key: other.apiKey })).status).toBe(200);
  });
});

import { ProjectService } from '../../src/tenancy/project.service';
