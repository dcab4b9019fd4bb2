import { randomUUID } from 'node:crypto';
import { startTestApp, TestApp } from '../support/test-app';
import { sendEvents } from '../support/send-events';

// The unknown lane (docs/unknown-lane.md) through the API on the default configuration: failures left `unknown` are
// grouped by their message's template, a person labels a template, and later failures of that template are stored
// with the label's category; another project's key neither sees nor labels them. One app for the file.

const TOOL = 'ship_order';
const QUOTA = (account: number, ref: string) => `Frobnicator quota spent for account ${account} (ref '${ref}')`;
const QUOTA_TEMPLATE = 'Frobnicator quota spent for account <num> (ref <str>)';
const OPAQUE = (id: string) => `Widget pipeline ${id} wobbled`;

const unknownEvent = (message: string, occurredAt: string) => ({
  id: randomUUID(),
  tool: TOOL,
  status: 'error',
  arguments: { order: 'A1' },
  error: { type: 'ToolError', message },
  occurredAt,
});

describe('the unknown lane', () => {
  let t: TestApp;
  let other: { projectId: string; apiKey: string };
  const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
  const first = [
    unknownEvent(QUOTA(8812, 'alpha'), minutesAgo(30)),
    unknownEvent(QUOTA(77, 'beta-2'), minutesAgo(20)),
    unknownEvent(OPAQUE('9b2f6c1e-4d7a-4b8e-9f00-1a2b3c4d5e6f'), minutesAgo(10)),
  ];

  beforeAll(async () => {
    t = await startTestApp();
    other = await t.createProject('other');
    await sendEvents(t, first);
  });

  afterAll(async () => {
    await t?.close();
  });

  const listTemplates = async (query = '', key?: string) => {
    const response = await t.request('GET', `/v1/unknown-templates${query}`, { key });
    expect(response.status).toBe(200);
    return response.body as { items: Array<{ id: string; template: string; count: number; label: unknown }>; nextCursor: string | null };
  };
  const quotaTemplate = async () => (await listTemplates()).items.find((item) => item.template === QUOTA_TEMPLATE)!;

  it('stores the failures as unknown and groups them by template, most recently seen first', async () => {
    for (const event of first) expect(await t.storedEvent(event.id)).toMatchObject({ category: 'unknown', subtype: null });
    const page = await listTemplates();
    expect(page.nextCursor).toBeNull();
    expect(page.items).toEqual([
      expect.objectContaining({ template: 'Widget pipeline <uuid> wobbled', count: 1, sampleEventIds: [first[2].id], label: null }),
      {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        template: QUOTA_TEMPLATE,
        count: 2,
        firstSeen: first[0].occurredAt,
        lastSeen: first[1].occurredAt,
        sampleEventIds: [first[0].id, first[1].id],
        example: { tool: TOOL, errorType: 'ToolError', message: QUOTA(8812, 'alpha') },
        label: null,
      },
    ]);
  });

  it('pages the templates with a cursor, and refuses a forged one with 400', async () => {
    const one = await listTemplates('?limit=1');
    expect(one.items.map((item) => item.template)).toEqual(['Widget pipeline <uuid> wobbled']);
    const two = await listTemplates(`?limit=1&cursor=${one.nextCursor}`);
    expect(two.items.map((item) => item.template)).toEqual([QUOTA_TEMPLATE]);
    expect(two.nextCursor).toBeNull();
    const forged = await t.request('GET', '/v1/unknown-templates?cursor=bm9wZQ');
    expect(forged).toMatchObject({ status: 400, body: { error: { code: 'invalid_query', details: [{ path: '/query/cursor' }] } } });
  });

  it.each([
    [{ category: 'unknown' }, '/category'],
    [{ category: 'out_of_range' }, '/subtype'],
    [{ category: 'runtime_error', subtype: 'type_mismatch' }, '/subtype'],
    [{ category: 'argument_mismatch', subtype: 'above_maximum' }, '/subtype'],
    [{ category: 'timeout', note: 'x' }, '/note'],
  ])('refuses the label %j with 400 naming %s', async (body, path) => {
    const { id } = await quotaTemplate();
    const response = await t.request('POST', `/v1/unknown-templates/${id}/label`, { body });
    expect(response).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_label', details: [expect.objectContaining({ path })] } },
    });
  });

  it("does not show a project's templates to another project's key, nor let it label them", async () => {
    const { id } = await quotaTemplate();
    expect((await listTemplates('', other.apiKey)).items).toEqual([]);
    const response = await t.request('POST', `/v1/unknown-templates/${id}/label`, { body: { category: 'timeout' }, key: other.apiKey });
    expect(response).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect((await quotaTemplate()).label).toBeNull();
  });

  it("labels a template, and stores its later failures with the label's category and evidence label", async () => {
    const { id } = await quotaTemplate();
    const labelled = await t.request('POST', `/v1/unknown-templates/${id}/label`, { body: { category: 'runtime_error' } });
    expect(labelled).toMatchObject({
      status: 200,
      body: { id, template: QUOTA_TEMPLATE, label: { category: 'runtime_error', subtype: null, labelledAt: expect.any(String) } },
    });
    const later = unknownEvent(QUOTA(5, 'gamma'), minutesAgo(1));
    const otherTemplate = unknownEvent(OPAQUE('0f0f0f0f-0000-4000-8000-000000000001'), minutesAgo(1));
    await sendEvents(t, [later, otherTemplate]);
    expect(await t.storedEvent(later.id)).toMatchObject({ category: 'runtime_error', subtype: null, evidence: 'label' });
    expect(await t.storedEvent(otherTemplate.id)).toMatchObject({ category: 'unknown' });
    // the failures stored before the label keep their category: the label decides from now on
    expect(await t.storedEvent(first[0].id)).toMatchObject({ category: 'unknown' });
    const templates = (await listTemplates()).items;
    expect(templates.find((item) => item.id === id)).toMatchObject({ count: 2, label: { category: 'runtime_error' } });
    expect(templates.find((item) => item.template === 'Widget pipeline <uuid> wobbled')).toMatchObject({ count: 2 });
  });

  it("keeps a label to its project: the same message sent with another project's key stays unknown", async () => {
    const event = unknownEvent(QUOTA(6, 'delta'), minutesAgo(1));
    await sendEvents({ ...t, projectId: other.projectId, request: (m, p, o) => t.request(m, p, { ...o, key: other.apiKey }) }, [event]);
    const stored = await t.request('GET', `/v1/events/${event.id}`, { key: other.apiKey });
    expect(stored.body.category).toBe('unknown');
    expect(stored.body.evidence).not.toBe('label');
    expect((await listTemplates('', other.apiKey)).items).toEqual([expect.objectContaining({ template: QUOTA_TEMPLATE, label: null })]);
  });

  it('exports the labelled templates as categorizer fixture lines, with their family', async () => {
    const response = await t.request('GET', '/v1/unknown-templates/fixtures');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/x-ndjson');
    const { id } = await quotaTemplate();
    expect(response.body).toEqual({
      id: `label-${id}`,
      source: `label:${t.projectId}:${QUOTA_TEMPLATE}`,
      family: `label:${t.projectId}`,
      tool: TOOL,
      arguments: null,
      error: { type: 'ToolError', message: QUOTA(8812, 'alpha') },
      expected: { category: 'runtime_error', subtype: null },
    });
    const none = await t.request('GET', '/v1/unknown-templates/fixtures', { key: other.apiKey });
    expect(none).toMatchObject({ status: 200, body: null });
  });
});
