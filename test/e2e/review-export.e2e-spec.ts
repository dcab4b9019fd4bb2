import { randomUUID } from 'node:crypto';
import { beforeAllAwayFromDayChange, runNightly } from '../support/job-runs';
import { sendEvents } from '../support/send-events';
import { startTestApp, TestApp } from '../support/test-app';

// Issue 39's review mode and fixes in the tool's source, on the default configuration (one app boot, one project per
// flow). Review mode: the nightly applies nothing a person has not approved; the approval starts the canary. Export: the
// JSON Patch of a learned limit, applied to the registered schema and registered again, retires the warning at the
// next nightly, its effect kept. Every call is stamped now and every nightly is for today.
const today = () => new Date().toISOString().slice(0, 10);
const CALLS = 100;
const TOOL = 'factorial';
const FACTORIAL = {
  description: 'Compute the factorial of one integer, e.g. {"n": 5}.',
  parameters: {
    type: 'object',
    properties: { n: { type: 'integer', minimum: 0, description: 'The integer.' } },
    required: ['n'],
    additionalProperties: false,
  },
};
const LIMIT_TEXT = "'n' above 20 fails (overflow).";

type Json = Record<string, unknown>;
interface Operation {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

/** RFC 6902 for what the test needs (add, replace, remove, move, test), independent of the server's code. */
function applyPatch(document: Json, patch: Operation[]): Json {
  const result = structuredClone(document);
  const locate = (pointer: string) => {
    const keys = pointer
      .split('/')
      .slice(1)
      .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = keys.pop()!;
    const parent = keys.reduce<Json>((node, key) => node[key] as Json, result);
    return { parent, last };
  };
  for (const operation of patch) {
    const target = locate(operation.path);
    if (operation.op === 'test') {
      expect(target.parent[target.last]).toEqual(operation.value);
    } else if (operation.op === 'remove') {
      delete target.parent[target.last];
    } else if (operation.op === 'move') {
      const source = locate(operation.from!);
      const value = source.parent[source.last];
      delete source.parent[source.last];
      target.parent[target.last] = value;
    } else if (operation.op === 'add' || operation.op === 'replace') {
      target.parent[target.last] = operation.value;
    } else {
      throw new Error(`unexpected operation ${operation.op}`);
    }
  }
  return result;
}

let t: TestApp;

beforeAllAwayFromDayChange(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** A project with factorial registered and a day of calls: every fifth overflows at n = 25, the others work up to 20. */
async function projectWithOverflows(name: string) {
  const project = await t.createProject(name);
  const request: TestApp['request'] = (method, path, options = {}) => t.request(method, path, { ...options, key: project.apiKey });
  expect((await request('PUT', `/v1/tools/${TOOL}`, { body: FACTORIAL })).status).toBe(201);
  const now = Date.now();
  const events = Array.from({ length: CALLS }, (_, i) => {
    const base = {
      id: randomUUID(),
      tool: TOOL,
      occurredAt: new Date(now - 60_000 + i).toISOString(),
      descriptionVersion: 1,
      durationMs: 1,
    };
    return i % 5 === 0
      ? {
          ...base,
          status: 'error',
          arguments: { n: 25 },
          error: { type: 'OverflowError', message: 'Factorial calculation overflow for n = 25' },
        }
      : { ...base, status: 'success', arguments: { n: i % 21 }, result: 1 };
  });
  await sendEvents({ request, db: t.db, projectId: project.projectId }, events);
  const nightly = async () => {
    const run = await runNightly({ request }, today());
    expect(run.body).toMatchObject({ status: 'succeeded' });
    return run.body.counts as Record<string, number>;
  };
  const learnedLimit = async () =>
    ((await request('GET', `/v1/recommendations?tool=${TOOL}&limit=200`)).body.items as Json[]).find((r) => r.kind === 'learned_limit')!;
  return { project, request, nightly, learnedLimit };
}

describe('review mode', () => {
  it('applies nothing without an approval; the approval starts the canary; another project cannot approve', async () => {
    const p = await projectWithOverflows('review-mode');
    expect((await p.request('GET', '/v1/policy')).body.reviewMode).toBe(false);
    expect((await p.request('PUT', '/v1/policy', { body: { reviewMode: true } })).body).toMatchObject({
      reviewMode: true,
      autoApply: true,
    });

    expect(await p.nightly()).toMatchObject({ applied: 0 });
    const waiting = await p.learnedLimit();
    expect(waiting).toMatchObject({ status: 'proposed', text: LIMIT_TEXT, approvedAt: null, waitingFor: { reason: 'awaiting_approval' } });
    expect((await p.request('GET', `/v1/rollout/canaries?tool=${TOOL}`)).body.items).toEqual([]);
    expect((await p.request('GET', `/v1/tools/${TOOL}/description`)).body).toMatchObject({ version: 1, warnings: [] });
    // a second nightly does not apply it either
    expect(await p.nightly()).toMatchObject({ applied: 0 });

    const other = await t.createProject('review-mode-other');
    const foreign = await t.request('POST', `/v1/recommendations/${waiting.id}/approve`, { key: other.apiKey });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');

    const approved = await p.request('POST', `/v1/recommendations/${waiting.id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      status: 'applied',
      approvedAt: expect.any(String),
      warningId: expect.any(String),
      waitingFor: null,
    });
    const [canary] = (await p.request('GET', `/v1/rollout/canaries?tool=${TOOL}`)).body.items;
    expect(canary).toMatchObject({ status: 'running', previousVersion: 1, canaryVersion: 2, warningIds: [approved.body.warningId] });
    expect((await p.request('GET', `/v1/tools/${TOOL}/description`)).body.description).toContain(LIMIT_TEXT);
    // approving again answers the same; an applied one without an approval is no candidate
    expect((await p.request('POST', `/v1/recommendations/${waiting.id}/approve`)).body).toMatchObject({
      id: waiting.id,
      status: 'applied',
    });
  }, 60_000);

  it('refuses to approve what does not wait for an approval, with 409 and what it waits for', async () => {
    const p = await projectWithOverflows('review-mode-off');
    expect((await p.request('PUT', '/v1/policy', { body: { autoApply: false, reviewMode: true } })).status).toBe(200);
    await p.nightly();
    const held = await p.learnedLimit();
    const refused = await p.request('POST', `/v1/recommendations/${held.id}/approve`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: 'not_awaiting_approval' }, waitingFor: { reason: 'auto_apply_off' } });
    expect((await p.request('POST', '/v1/recommendations/not-a-uuid/approve')).status).toBe(404);
  }, 60_000);
});

describe('fixes in the tool source', () => {
  it('exports the learned limit as a JSON Patch; registered again with it, the warning retires at the next nightly, its effect kept', async () => {
    const p = await projectWithOverflows('source-fix');
    expect(await p.nightly()).toMatchObject({ applied: 1 });
    const applied = await p.learnedLimit();
    expect(applied).toMatchObject({ status: 'applied', warningId: expect.any(String) });

    const exported = await p.request('GET', `/v1/recommendations/${applied.id}/source-fix?format=openai`);
    expect(exported.status).toBe(200);
    expect(exported.body).toMatchObject({
      tool: TOOL,
      // the tool's current version: the one its applied warning made
      version: 2,
      schemaPatch: [{ op: 'add', path: '/properties/n/maximum', value: 20 }],
      description: { current: FACTORIAL.description, rewritten: FACTORIAL.description },
      findings: [{ recommendationId: applied.id, kind: 'learned_limit', change: 'schema' }],
      snippet: { format: 'openai', language: 'json' },
    });
    expect(JSON.parse(exported.body.snippet.text).function.parameters.properties.n).toEqual({
      ...FACTORIAL.parameters.properties.n,
      maximum: 20,
    });
    const tool = await p.request('GET', `/v1/tools/${TOOL}/source-fix?format=zod`);
    expect(tool.status).toBe(200);
    expect(tool.body.schemaPatch).toEqual(exported.body.schemaPatch);
    expect(tool.body.snippet.text).toContain('"n": z.number().int().min(0).max(20).describe("The integer."),');
    expect((await p.request('GET', `/v1/tools/${TOOL}/source-fix?format=yaml`)).status).toBe(400);
    expect((await p.request('GET', '/v1/tools/unknown_tool/source-fix')).status).toBe(404);

    const patched = applyPatch(FACTORIAL.parameters, exported.body.schemaPatch);
    const registered = await p.request('PUT', `/v1/tools/${TOOL}`, { body: { description: FACTORIAL.description, parameters: patched } });
    expect(registered.status).toBe(200);
    expect(await p.nightly()).toMatchObject({ fixedUpstream: 1 });

    const retired = await p.learnedLimit();
    expect(retired).toMatchObject({
      status: 'dismissed',
      effect: expect.objectContaining({
        verdict: expect.any(String),
        fixedUpstream: { version: registered.body.version, at: expect.any(String) },
      }),
    });
    const warnings = (await p.request('GET', `/v1/tools/${TOOL}/warnings`)).body.warnings as Json[];
    expect(warnings).toContainEqual(
      expect.objectContaining({ id: applied.warningId, status: 'dismissed', dismissedReason: expect.stringContaining('carries this fix') }),
    );
    expect((await p.request('GET', `/v1/tools/${TOOL}/description`)).body.description).not.toContain(LIMIT_TEXT);
    // nothing is left to export: the definition carries it
    expect((await p.request('GET', `/v1/tools/${TOOL}/source-fix`)).body).toMatchObject({ findings: [], schemaPatch: [] });
  }, 60_000);
});
