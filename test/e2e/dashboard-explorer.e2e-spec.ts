import { randomUUID } from 'node:crypto';
import { anErrorEvent, anEvent } from '../factories/event.factory';
import { sendEvents } from '../support/send-events';
import { startTestApp, TestApp } from '../support/test-app';

const TOOL = 'prime_factorization';
const MISNAMED = "prime_factorization() got an unexpected keyword argument 'numbers'";
const HOUR_MS = 3_600_000;
// what an SDK's guard reports: a call it corrected before the tool ran, and one it refused (the tool never ran)
const CORRECTION = { original: { numbers: [12] }, corrected: { number: 12 }, kinds: ['rename', 'unwrap_array'] };
const REFUSAL = "guarded_tool was not called: 'number' must be integer, not an array: pass one integer per call";

interface StoredEvent {
  id: string;
  tool: string;
  sessionId: string | null;
  agent: string | null;
  status: string;
  occurredAt: string;
  receivedAt: string;
  errorGroupId: string | null;
  argumentPath: string | null;
  correction: unknown;
  prevented: boolean;
}

/** The events explorer (GET /v1/events filters) and the JSONL export, over HTTP with the worker really storing events. */
describe('events explorer and export', () => {
  let t: TestApp;
  const now = Date.now();
  const at = (i: number) => new Date(now - HOUR_MS + i * 1000).toISOString();
  const oldOccurredAt = '2026-01-02T10:00:00.000Z';
  const misnamed = (id: string, i: number, session: string) =>
    anErrorEvent(MISNAMED, { id, tool: TOOL, arguments: { numbers: [12, 15] }, occurredAt: at(i), sessionId: session, agent: 'planner' });
  const events = [
    anEvent({ id: 's1-a', tool: TOOL, arguments: { number: 12 }, occurredAt: at(1), sessionId: 's-1', agent: 'planner', model: 'm1' }),
    misnamed('s1-b', 2, 's-1'),
    anEvent({ id: 's1-c', tool: 'get_weather', occurredAt: at(3), sessionId: 's-1', agent: 'planner', descriptionVersion: 1 }),
    misnamed('s2-a', 4, 's-2'),
    anErrorEvent('Weather service timed out after 30000 ms', { id: 's2-b', tool: 'get_weather', occurredAt: at(5), sessionId: 's-2' }),
    anEvent({ id: 'late', tool: TOOL, arguments: { number: 7 }, occurredAt: oldOccurredAt }),
    anEvent({ id: 'g-corrected', tool: 'guarded_tool', arguments: { number: 12 }, occurredAt: at(-20), correction: CORRECTION }),
    anErrorEvent(REFUSAL, {
      id: 'g-prevented',
      tool: 'guarded_tool',
      arguments: { numbers: [12, 18] },
      occurredAt: at(-19),
      prevented: true,
    }),
  ];

  async function list(query: string): Promise<StoredEvent[]> {
    const response = await t.request('GET', `/v1/events?${query}`);
    expect(response.status).toBe(200);
    return response.body.items;
  }

  async function exportLines(query: string, key = t.apiKey) {
    const response = await fetch(`${t.baseUrl}/v1/events/export?${query}`, { headers: { authorization: `Bearer ${key}` } });
    const text = await response.text();
    const lines =
      text === ''
        ? []
        : text
            .trimEnd()
            .split('\n')
            .map((line) => JSON.parse(line));
    return { response, text, lines };
  }

  beforeAll(async () => {
    t = await startTestApp();
    await t.request('PUT', `/v1/tools/${TOOL}`, {
      body: {
        description: 'Prime factors of one integer.',
        parameters: { type: 'object', properties: { number: { type: 'integer' } }, required: ['number'] },
      },
    });
    await sendEvents(t, events);
  });
  afterAll(() => t.close());

  describe('GET /v1/events', () => {
    it("follows a session: every event that reported the session id, and no other project's", async () => {
      const session = await list('session=s-1');
      expect(session.map((e) => e.id)).toEqual(['s1-c', 's1-b', 's1-a']);
      const other = await t.createProject(`other-${randomUUID().slice(0, 6)}`);
      expect((await t.request('GET', '/v1/events?session=s-1', { key: other.apiKey })).body.items).toEqual([]);
    });

    it('filters by tool, status, agent and error group together', async () => {
      const errors = await list(`tool=${TOOL}&status=error&agent=planner`);
      expect(errors.map((e) => e.id)).toEqual(['s2-a', 's1-b']);
      const groupId = errors[0].errorGroupId!;
      expect(groupId).toEqual(expect.any(String));
      expect((await list(`errorGroup=${groupId}`)).map((e) => e.id)).toEqual(['s2-a', 's1-b']);
      expect(await list(`errorGroup=${groupId.toUpperCase()}&session=s-1`)).toHaveLength(1);
    });

    it('filters on occurredAt with from/to and on the received time (the partition key) with receivedFrom/receivedTo', async () => {
      expect((await list('from=2026-01-02T00:00:00Z&to=2026-01-03T00:00:00Z')).map((e) => e.id)).toEqual(['late']);
      const late = (await list('from=2026-01-02T00:00:00Z&to=2026-01-03T00:00:00Z'))[0];
      const received = new Date(late.receivedAt).getTime();
      expect(received).toBeGreaterThan(now - 60_000);
      const around = (
        await list(`receivedFrom=${new Date(received - HOUR_MS).toISOString()}&receivedTo=${new Date(received + HOUR_MS).toISOString()}`)
      ).map((e) => e.id);
      expect(around.sort()).toEqual(events.map((e) => e.id).sort());
      expect(await list(`receivedFrom=${new Date(now + 2 * HOUR_MS).toISOString()}`)).toEqual([]);
    });

    it('shows one event with its arguments, error, category, evidence and the description version the agent used', async () => {
      const response = await t.request('GET', '/v1/events/s1-b');
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        arguments: { numbers: [12, 15] },
        error: { message: MISNAMED },
        category: 'argument_mismatch',
        evidence: expect.stringMatching(/^(schema|message)$/),
        sessionId: 's-1',
      });
      expect((await t.request('GET', '/v1/events/s1-c')).body.descriptionVersion).toBe(1);
    });

    it("shows what the SDK's guard did: a corrected call's correction and a refused call as prevented, in the list and alone", async () => {
      const guarded = await list('tool=guarded_tool');
      expect(guarded.map((e) => [e.id, e.correction, e.prevented])).toEqual([
        ['g-prevented', null, true],
        ['g-corrected', CORRECTION, false],
      ]);
      expect((await t.request('GET', '/v1/events/g-corrected')).body).toMatchObject({ correction: CORRECTION, prevented: false });
      expect((await t.request('GET', '/v1/events/g-prevented')).body).toMatchObject({
        correction: null,
        prevented: true,
        error: { message: REFUSAL },
      });
      expect((await t.request('GET', '/v1/events/s1-a')).body).toMatchObject({ correction: null, prevented: false });
    });

    it.each([
      ['receivedFrom=2026-03-02T00:00:00Z&receivedTo=2026-03-01T00:00:00Z', '/query/receivedFrom'],
      ['from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z', '/query/from'],
      ['receivedTo=1969-12-31T00:00:00Z', '/query/receivedTo'],
      ['errorGroup=not-a-uuid', '/query/errorGroup'],
      [`session=${'s'.repeat(201)}`, '/query/session'],
    ])('answers %s with 400 naming %s', async (query, field) => {
      const response = await t.request('GET', `/v1/events?${query}`);
      expect(response.status).toBe(400);
      expect(response.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
    });
  });

  describe('GET /v1/events/export', () => {
    it('streams the failures of a tool as JSON lines with a file name, each with its known fix', async () => {
      const stored = (await t.request('GET', '/v1/events/s1-b')).body as StoredEvent;
      expect(stored.argumentPath).toEqual(expect.any(String));
      const warning = 'Pass one integer as `number`; `numbers` does not exist.';
      await t.db.sql.query(
        `INSERT INTO tool_warnings (project_id, tool_id, kind, text, evidence, evidence_key, source)
         SELECT project_id, id, 'wrong_argument_name', $3, '{}', $4, 'manual' FROM tools WHERE project_id = $1 AND name = $2`,
        [t.projectId, TOOL, warning, `wrong_argument_name:${stored.argumentPath}`],
      );
      const { response, lines } = await exportLines(`status=error&tool=${TOOL}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
      expect(response.headers.get('content-disposition')).toMatch(
        /^attachment; filename="toolcoach-prime_factorization-error-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.jsonl"$/,
      );
      expect(response.headers.get('transfer-encoding')).toBe('chunked');
      expect(lines.map((line) => line.id)).toEqual(['s2-a', 's1-b']);
      expect(lines[1]).toEqual({
        id: 's1-b',
        occurredAt: at(2),
        tool: TOOL,
        schemaVersion: null,
        agent: 'planner',
        model: null,
        arguments: { numbers: [12, 15] },
        status: 'error',
        error: { type: 'Error', message: MISNAMED },
        category: 'argument_mismatch',
        subtype: expect.anything(),
        argumentPath: stored.argumentPath,
        fix: { warningText: warning },
      });
      const weather = await exportLines('status=error&tool=get_weather');
      expect(weather.lines.map((line) => [line.id, line.fix])).toEqual([['s2-b', null]]);
    });

    it('stops at the row cap and exports only the asked project', async () => {
      expect((await exportLines('limit=2')).lines.map((line) => line.id)).toEqual(['s2-b', 's2-a']);
      const other = await t.createProject(`other-${randomUUID().slice(0, 6)}`);
      const foreign = await exportLines('status=error', other.apiKey);
      expect(foreign.response.status).toBe(200);
      expect(foreign.text).toBe('');
    });

    it('reads page after page without losing or repeating a row across page boundaries', async () => {
      const many = Array.from({ length: 1_203 }, (_, i) =>
        anEvent({ id: `bulk-${String(i).padStart(4, '0')}`, tool: 'bulk_tool', occurredAt: new Date(now - 2 * HOUR_MS + i).toISOString() }),
      );
      await sendEvents(t, many);
      const { lines } = await exportLines('tool=bulk_tool&limit=100000');
      expect(lines.map((line) => line.id)).toEqual(many.map((e) => e.id).reverse());
      expect((await exportLines('tool=bulk_tool&limit=700')).lines).toHaveLength(700);
    });

    it.each([
      ['from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z', '/query/from'],
      ['limit=100001', '/query/limit'],
      ['status=failed', '/query/status'],
    ])('answers %s with 400 naming %s', async (query, field) => {
      const { response, text } = await exportLines(query);
      expect(response.status).toBe(400);
      expect(JSON.parse(text).error.details.map((d: { path: string }) => d.path)).toContain(field);
    });
  });
});
