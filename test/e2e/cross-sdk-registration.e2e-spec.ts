import { Toolcoach } from '@toolcoach/sdk';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sameTools } from '../fixtures/sdk-schemas/same-tools';
import { LANGCHAIN_CORE_PROBE, PYTHON_TEST_PACKAGES, PYTHON_TEST_VENV, pythonVenv } from '../support/python-venv';
import { reportSkip } from '../support/skip-report';
import { startTestApp, TestApp } from '../support/test-app';

// Issue 34, finding 7: a Python agent (LangChain @tool, pydantic 2 schemas) and a JS agent (LangChain.js, zod 4) with
// the same tools, started in turn, made a new version at every start, and each new version ended a running canary.
// Both real SDKs register here; registered-schemas.json holds what each sent when capture.sh last ran.

const FIXTURES = join(__dirname, '..', 'fixtures', 'sdk-schemas');
const SDK_PYTHON_DIR = join(__dirname, '..', '..', 'sdk-python');
const REGISTERED = JSON.parse(readFileSync(join(FIXTURES, 'registered-schemas.json'), 'utf8')) as {
  python: Record<string, { name: string; description: string; parameters: Record<string, unknown> }>;
  typescript: Record<string, { name: string; description: string; parameters: Record<string, unknown> }>;
};
const TOOL_NAMES = ['gcd', 'factorial', 'search'];
/** A registered definition as the body of PUT /v1/tools/{name}, which takes the name from the path. */
const putBody = ({ description, parameters }: { description: string; parameters: Record<string, unknown> }) => ({
  description,
  parameters,
});

const venv = pythonVenv(PYTHON_TEST_VENV, PYTHON_TEST_PACKAGES, LANGCHAIN_CORE_PROBE);
if (!venv.ok) reportSkip(`the cross-SDK registration tests (test/e2e/cross-sdk-registration.e2e-spec.ts): ${venv.reason}`);
const describeWithVenv = venv.ok ? describe : describe.skip;

describeWithVenv('one tool registered in turn by the Python SDK (pydantic) and the TypeScript SDK (zod)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    // the first start: the Python agent creates the tools
    await startPythonAgent();
  }, 60_000);
  afterAll(() => t?.close());

  /** The Python SDK's load_tools with the real tools of same_tools.py, in a process of its own as an agent starts. */
  async function startPythonAgent(): Promise<void> {
    const script = [
      'import sys',
      `sys.path.insert(0, ${JSON.stringify(FIXTURES)})`,
      'from same_tools import TOOLS',
      'from toolcoach.live import load_tools',
      'load_tools(TOOLS, timeout_s=30)',
    ].join('\n');
    const python = (venv as { python: string }).python;
    const env = { ...process.env, TOOLCOACH_URL: t.baseUrl, TOOLCOACH_API_KEY: t.apiKey, PYTHONDONTWRITEBYTECODE: '1' };
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn(python, ['-c', script], { cwd: SDK_PYTHON_DIR, env });
      let text = '';
      child.stdout.on('data', (chunk) => (text += chunk));
      child.stderr.on('data', (chunk) => (text += chunk));
      child.on('error', reject);
      child.on('close', (exitCode) => resolve({ code: exitCode, output: text }));
    });
    // load_tools never raises: a refused or failed registration only logs, so its silence is what says it registered
    expect({ code, output }).toEqual({ code: 0, output: '' });
  }

  async function startTypescriptAgent(): Promise<void> {
    const tc = new Toolcoach({ baseUrl: t.baseUrl, apiKey: t.apiKey, cacheDir: false, flushOnExit: false, startupTimeoutMs: 15_000 });
    await tc.loadTools(sameTools());
    expect(tc.descriptionSource).toBe('server');
    await tc.shutdown(5_000);
  }

  async function servedVersions(): Promise<Record<string, number>> {
    const listed = await t.request('GET', '/v1/tools?format=raw');
    expect(listed.status).toBe(200);
    const tools = listed.body.tools as Array<{ name: string; version: number }>;
    return Object.fromEntries(tools.filter((tool) => TOOL_NAMES.includes(tool.name)).map((tool) => [tool.name, tool.version]));
  }

  async function versionCount(): Promise<number> {
    const { rows } = await t.db.sql.query(
      `SELECT count(*)::int AS n FROM tool_versions v JOIN tools t ON t.id = v.tool_id WHERE t.name = ANY($1) AND t.project_id = $2`,
      [TOOL_NAMES, t.projectId],
    );
    return rows[0].n;
  }

  it('makes one version per tool over 6 more starts, TypeScript and Python in turn, and keeps serving the first schema', async () => {
    for (let start = 0; start < 6; start++) {
      if (start % 2 === 0) await startTypescriptAgent();
      else await startPythonAgent();
    }
    expect(await servedVersions()).toEqual({ gcd: 1, factorial: 1, search: 1 });
    expect(await versionCount()).toBe(3);
    const served = await t.request('GET', '/v1/tools/search/description');
    expect(served.body.parameters).toEqual(REGISTERED.python.search.parameters);
  }, 180_000);

  it('says in the answer that the current schema is kept, and why', async () => {
    const answer = await t.request('POST', '/v1/tools:bulk', { body: { tools: TOOL_NAMES.map((name) => REGISTERED.typescript[name]) } });
    expect(answer.status).toBe(200);
    expect(
      answer.body.tools.map((tool: { name: string; version: number; status: string; schema: unknown }) => [
        tool.name,
        tool.version,
        tool.status,
        tool.schema,
      ]),
    ).toEqual([
      [
        'gcd',
        1,
        'unchanged',
        { kept: 'current', reason: 'equivalent', differences: ['$schema', 'description', 'safe_integer_bounds', 'title'] },
      ],
      [
        'factorial',
        1,
        'unchanged',
        { kept: 'current', reason: 'equivalent', differences: ['$schema', 'description', 'safe_integer_bounds', 'title'] },
      ],
      [
        'search',
        1,
        'unchanged',
        { kept: 'current', reason: 'equivalent', differences: ['$schema', 'description', 'safe_integer_bounds', 'title'] },
      ],
    ]);
    const same = await t.request('PUT', '/v1/tools/gcd', { body: putBody(REGISTERED.python.gcd) });
    expect(same.body).toMatchObject({ version: 1, status: 'unchanged', schema: { kept: 'current', reason: 'identical', differences: [] } });
  });

  it('lets a running canary go on through alternating starts; a schema that accepts other arguments supersedes it', async () => {
    const warned = await t.request('POST', '/v1/tools/factorial/warnings', { body: { text: 'n must be at most 20.', canary: true } });
    expect(warned.status).toBe(201);
    const canaries = async () =>
      (await t.request('GET', '/v1/rollout/canaries?tool=factorial')).body.items as Array<{ id: string; status: string }>;
    const [canary] = await canaries();
    expect(canary).toMatchObject({ status: 'running', canaryVersion: 2 });

    for (let start = 0; start < 4; start++) {
      if (start % 2 === 0) await startTypescriptAgent();
      else await startPythonAgent();
    }
    expect(await canaries()).toEqual([expect.objectContaining({ id: canary.id, status: 'running' })]);
    // a GET without a sticky id is served the canary's previous version: the tool's own row says which is newest
    const { rows } = await t.db.sql.query(`SELECT version FROM tools WHERE name = 'factorial' AND project_id = $1`, [t.projectId]);
    expect(rows).toEqual([{ version: 2 }]);

    const capped = REGISTERED.typescript.factorial;
    const cappedParameters = {
      ...capped.parameters,
      properties: { n: { type: 'integer', minimum: 0, maximum: 20, description: 'a non-negative integer' } },
    };
    const changed = await t.request('PUT', '/v1/tools/factorial', { body: putBody({ ...capped, parameters: cappedParameters }) });
    expect(changed.body).toMatchObject({ version: 3, status: 'updated', schema: { kept: 'incoming', reason: 'changed', differences: [] } });
    expect(await canaries()).toEqual([expect.objectContaining({ id: canary.id, status: 'superseded' })]);
  }, 180_000);

  it.each([
    [
      'a new required argument',
      'gcd',
      (p: Schema) => ({ ...p, properties: { ...p.properties, c: { type: 'integer' } }, required: ['a', 'b', 'c'] }),
    ],
    ['a changed type', 'gcd', (p: Schema) => ({ ...p, properties: { ...p.properties, b: { type: 'number', title: 'B' } } })],
    [
      'a maximum',
      'search',
      (p: Schema) => ({ ...p, properties: { ...p.properties, limit: { anyOf: [{ type: 'integer', maximum: 50 }, { type: 'null' }] } } }),
    ],
  ])('makes a new version for %s', async (_what, name, change) => {
    const before = (await servedVersions())[name];
    const registered = REGISTERED.python[name];
    const answer = await t.request('PUT', `/v1/tools/${name}`, {
      body: putBody({ ...registered, parameters: change(registered.parameters as Schema) }),
    });
    expect(answer.body).toMatchObject({ version: before + 1, status: 'updated', schema: { kept: 'incoming', reason: 'changed' } });
  });
});

type Schema = { properties: Record<string, unknown> } & Record<string, unknown>;
