import { randomUUID } from 'node:crypto';
import { eventually, startTestApp, TestApp } from '../support/test-app';

// Failures reported as results (docs/result-failures.md), through the API on the default configuration: each rule
// stores a call its sender reported as a success as a failure, categorized from the text its result carries, with
// evidence "result" and the rule; each rule turned off leaves such a call a success. One app for the file.

interface RuleCase {
  rule: string;
  tool: string;
  arguments: Record<string, unknown>;
  result: unknown;
  error: { type: string; message: string };
  category: string;
  subtype: string | null;
}

const CASES: RuleCase[] = [
  {
    rule: 'mcp_is_error',
    tool: 'factorial',
    arguments: { n: 25 },
    result: { content: [{ type: 'text', text: 'n must be <= 20' }], isError: true },
    error: { type: 'ResultError', message: 'n must be <= 20' },
    category: 'out_of_range',
    subtype: 'above_maximum',
  },
  {
    rule: 'failure_flag',
    tool: 'factorial',
    arguments: { n: 30 },
    result: { success: false, message: 'n must be <= 20' },
    error: { type: 'ResultError', message: 'n must be <= 20' },
    category: 'out_of_range',
    subtype: 'above_maximum',
  },
  {
    rule: 'error_field',
    tool: 'factorial',
    arguments: {},
    result: { error: { type: 'ValidationError', message: "missing required argument 'n'" } },
    error: { type: 'ValidationError', message: "missing required argument 'n'" },
    category: 'argument_mismatch',
    subtype: 'missing_argument',
  },
  {
    rule: 'status_code',
    tool: 'get_order',
    arguments: { id: 'A1' },
    result: { statusCode: 504, body: null },
    error: { type: 'ResultError', message: 'status code 504' },
    category: 'timeout',
    subtype: null,
  },
  {
    rule: 'error_string',
    tool: 'factorial',
    arguments: { n: 40 },
    result: 'ValueError: n must be <= 20',
    error: { type: 'ValueError', message: 'ValueError: n must be <= 20' },
    category: 'out_of_range',
    subtype: 'above_maximum',
  },
];

const ALL_RULES = CASES.map((c) => c.rule);

describe('failures reported as results', () => {
  let t: TestApp;
  const ids = new Map<string, string>();
  const nearMissId = randomUUID();

  beforeAll(async () => {
    t = await startTestApp();
    const events = CASES.map((c) => {
      const id = randomUUID();
      ids.set(c.rule, id);
      return { id, tool: c.tool, status: 'success', arguments: c.arguments, result: c.result };
    });
    events.push({ id: nearMissId, tool: 'get_order', status: 'success', arguments: { id: 'A2' }, result: { success: true, error: null } });
    const response = await t.request('POST', '/v1/events', { body: { events } });
    expect(response.status).toBe(202);
  });

  afterAll(async () => {
    await t?.close();
  });

  it.each(CASES)('stores a reported success that $rule reads as a failure, categorized from its text', async (c) => {
    const event = await t.storedEvent(ids.get(c.rule)!);
    expect(event).toMatchObject({
      status: 'error',
      error: { ...c.error, stack: null },
      category: c.category,
      subtype: c.subtype,
      evidence: 'result',
      resultRule: c.rule,
      result: c.result,
    });
  });

  it('leaves a near miss ({"success": true, "error": null}) a success', async () => {
    const event = await t.storedEvent(nearMissId);
    expect(event).toMatchObject({ status: 'success', error: null, category: null, evidence: null, resultRule: null });
  });

  it('counts result failures as errors in the stats, as every number downstream of the stored status', async () => {
    const response = await t.request('GET', '/v1/stats/tools');
    expect(response.status).toBe(200);
    const rows = new Map<string, { calls: number; errors: number; errorsByCategory: Record<string, number> }>(
      response.body.items.map((row: { tool: string }) => [row.tool, row]),
    );
    expect(rows.get('factorial')).toMatchObject({ calls: 4, errors: 4, errorsByCategory: { out_of_range: 3, argument_mismatch: 1 } });
    expect(rows.get('get_order')).toMatchObject({ calls: 2, errors: 1, errorsByCategory: { timeout: 1 } });
  });

  describe('the policy', () => {
    it('has every rule on by default', async () => {
      const response = await t.request('GET', '/v1/result-failures/policy');
      expect(response).toMatchObject({ status: 200, body: { disabledRules: [] } });
    });

    it.each([
      [{ disabledRules: ['isError'] }, '/disabledRules/0'],
      [{ disabledRules: 'error_field' }, '/disabledRules'],
      [{ disabledRules: ['error_field', 'error_field'] }, '/disabledRules'],
      [{ rules: [] }, '/rules'],
    ])('refuses %j with 400 naming %s', async (body, path) => {
      const response = await t.request('PUT', '/v1/result-failures/policy', { body });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_policy' });
      expect(response.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    });
  });

  describe('with every rule turned off', () => {
    let other: { projectId: string; apiKey: string };
    const offIds = new Map<string, string>();

    beforeAll(async () => {
      other = await t.createProject('rules-off');
      const put = await t.request('PUT', '/v1/result-failures/policy', { body: { disabledRules: ALL_RULES }, key: other.apiKey });
      expect(put).toMatchObject({ status: 200, body: { disabledRules: ALL_RULES } });
      const events = CASES.map((c) => {
        const id = randomUUID();
        offIds.set(c.rule, id);
        return { id, tool: c.tool, status: 'success', arguments: c.arguments, result: c.result };
      });
      expect((await t.request('POST', '/v1/events', { body: { events }, key: other.apiKey })).status).toBe(202);
    });

    it.each(CASES)('keeps a reported success that only $rule reads as a failure a success', async (c) => {
      const event = await storedIn(other.apiKey, offIds.get(c.rule)!);
      expect(event).toMatchObject({ status: 'success', error: null, category: null, evidence: null, resultRule: null, result: c.result });
    });
  });

  it('with one rule off, stores a result another rule reads as a failure under that rule', async () => {
    const project = await t.createProject('flag-off');
    const put = await t.request('PUT', '/v1/result-failures/policy', { body: { disabledRules: ['failure_flag'] }, key: project.apiKey });
    expect(put.body).toEqual({ disabledRules: ['failure_flag'] });
    expect((await t.request('PUT', '/v1/result-failures/policy', { body: {}, key: project.apiKey })).body).toEqual({
      disabledRules: ['failure_flag'],
    });
    const [both, flagOnly] = [randomUUID(), randomUUID()];
    const events = [
      { id: both, tool: 'factorial', status: 'success', arguments: { n: 25 }, result: { success: false, error: 'n must be <= 20' } },
      { id: flagOnly, tool: 'factorial', status: 'success', arguments: { n: 25 }, result: { ok: false } },
    ];
    expect((await t.request('POST', '/v1/events', { body: { events }, key: project.apiKey })).status).toBe(202);
    expect(await storedIn(project.apiKey, both)).toMatchObject({
      status: 'error',
      resultRule: 'error_field',
      category: 'out_of_range',
      evidence: 'result',
    });
    expect(await storedIn(project.apiKey, flagOnly)).toMatchObject({ status: 'success', resultRule: null });
  });

  async function storedIn(apiKey: string, id: string) {
    return eventually(async () => {
      const response = await t.request('GET', `/v1/events/${encodeURIComponent(id)}`, { key: apiKey });
      return response.status === 200 ? response.body : undefined;
    });
  }
});
