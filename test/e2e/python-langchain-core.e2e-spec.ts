import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { LANGCHAIN_CORE_PROBE, PYTHON_TEST_PACKAGES, PYTHON_TEST_VENV, pythonVenv } from '../support/python-venv';
import { reportSkip } from '../support/skip-report';
import { eventually, startTestApp, TestApp } from '../support/test-app';
import { TEST_STARTUP_TIMEOUT_ENV } from '../support/startup-timeout';

const SDK_DIR = join(__dirname, '..', '..', 'sdk-python');
const PYTHON_EXAMPLE = join(__dirname, '..', '..', 'examples', 'langchain-python', 'agent.py');
const venv = pythonVenv(PYTHON_TEST_VENV, PYTHON_TEST_PACKAGES, LANGCHAIN_CORE_PROBE);
if (!venv.ok) reportSkip(`the real langchain_core tests (test/e2e/python-langchain-core.e2e-spec.ts): ${venv.reason}`);
const describeWithVenv = venv.ok ? describe : describe.skip;

function runPython(python: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, args, { cwd: SDK_DIR, env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

type StoredEvent = Record<string, unknown> & { error?: { type?: string; message: string }; category?: string | null };

describeWithVenv('Python SDK with real langchain_core 1.6.5 against the running app', () => {
  let t: TestApp;
  let run: { code: number | null; output: string };
  beforeAll(async () => {
    t = await startTestApp();
    // The real-langchain module, and the handler tests that only run when langchain_core is importable.
    run = await runPython(
      (venv as { python: string }).python,
      ['-m', 'unittest', '-v', 'tests.test_langchain_core', 'tests.test_langchain.HandlerTest', 'tests.test_guard'],
      { TOOLCOACH_URL: t.baseUrl, TOOLCOACH_API_KEY: t.apiKey, PYTHONDONTWRITEBYTECODE: '1', ...TEST_STARTUP_TIMEOUT_ENV },
    );
  }, 240_000);
  afterAll(() => t?.close());

  it('passes the real langchain_core unittests with none skipped', () => {
    if (run.code !== 0) throw new Error(`python -m unittest exited with ${run.code}:\n${run.output}`);
    expect(run.output).toMatch(/\nOK\b/);
    // Only the duck-typed test may skip (langchain_core is installed here); every real-langchain test must run.
    const results = [...run.output.matchAll(/^(test_\w+) \((tests\.[\w.]+)\) \.\.\. (\w+)/gm)].map(([, name, path, outcome]) => ({
      name,
      path,
      outcome,
    }));
    const realTests = results.filter(({ path }) => path.startsWith('tests.test_langchain_core.'));
    expect(realTests.map(({ outcome }) => outcome)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(results.filter(({ outcome }) => outcome !== 'ok').map(({ name }) => name)).toEqual([
      'test_works_duck_typed_when_langchain_core_is_absent',
    ]);
    expect(results).toContainEqual(
      expect.objectContaining({ name: 'test_subclasses_base_callback_handler_with_a_real_langchain_tool', outcome: 'ok' }),
    );
  });

  const eventsOf = async (tool: string): Promise<StoredEvent[]> => {
    const response = await t.request('GET', `/v1/events?tool=${tool}&limit=200`);
    expect(response.status).toBe(200);
    return response.body.items;
  };

  it('stored every failure with its category and a non-null error.type', async () => {
    const byCall = new Map<unknown, StoredEvent>();
    for (const tool of ['factorial', 'prime_factorise', 'prime_factorization']) {
      for (const event of await eventsOf(tool)) byCall.set(event.toolCallId ?? event.runId, event);
    }
    const expected: Array<[string, string, string]> = [
      ['lc_invalid', 'argument_mismatch', 'InvalidToolCall'],
      ['lc_type', 'argument_mismatch', 'ToolInvocationError'],
      ['lc_overflow', 'overflow', 'OverflowError'],
      ['lc_unknown', 'unknown_tool', 'ToolNotFoundError'],
      // "number must be >= 2", answered by handle_tool_error=True: with a tool call, and with plain arguments
      ['lc_handled', 'out_of_range', 'ToolException'],
      ['00000000-0000-4000-8000-00000000c0de', 'out_of_range', 'ToolException'],
    ];
    for (const [key, category, type] of expected) {
      const event = byCall.get(key);
      expect({ key, status: event?.status, category: event?.category, type: event?.error?.type }).toEqual({
        key,
        status: 'error',
        category,
        type,
      });
    }
    expect(byCall.get('lc_invalid')).toMatchObject({
      subtype: 'malformed_arguments',
      framework: 'langchain-python',
      agent: 'langchain-core-e2e',
    });
    const errors = [...byCall.values()].filter((e) => e.status === 'error');
    expect(errors.filter((e) => !e.error?.type)).toEqual([]);
  });

  it("stored the guard's correction and its refusals as test_d made them (load_tools(guard=True))", async () => {
    const { rows } = await t.db.sql.query(
      `SELECT tool_call_id, status, arguments, correction, prevented, error_type, category FROM events
       WHERE tool_call_id LIKE 'g\\_%' ORDER BY tool_call_id`,
    );
    const stored = Object.fromEntries(rows.map((row) => [row.tool_call_id, row]));
    expect(Object.keys(stored)).toEqual(['g_limit', 'g_retry', 'g_several', 'g_unwrap']);
    expect(stored.g_unwrap).toMatchObject({
      status: 'success',
      arguments: { number: 12 },
      correction: { original: { numbers: [12] }, corrected: { number: 12 }, kinds: ['rename', 'unwrap_array'] },
      prevented: false,
    });
    expect(stored.g_several).toMatchObject({
      status: 'error',
      arguments: { numbers: [12, 18] },
      correction: null,
      prevented: true,
      error_type: 'GuardRefused',
      category: 'argument_mismatch',
    });
    expect(stored.g_limit).toMatchObject({ status: 'error', arguments: { n: 25 }, prevented: true, error_type: 'GuardRefused' });
    expect(stored.g_retry).toMatchObject({ status: 'success', correction: null, prevented: false });
  });

  it('registered the tools through load_tools and serves the learned warning as version 2 or later', async () => {
    const listed = await t.request('GET', '/v1/tools?format=raw');
    const factorial = listed.body.tools.find((tool: { name: string }) => tool.name === 'factorial');
    // the nightly may also apply the tool-quality checker's additions (docs/tool-quality.md), each a version
    expect(factorial.version).toBeGreaterThanOrEqual(2);
    expect(factorial).toMatchObject({
      baseDescription: 'Compute n! for a non-negative integer n.',
      parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    });
    expect(factorial.description).toContain("'n' above 20 fails (overflow)");
    // on the default policy: a canary served to every caller, which test_e's nightly promoted on the agent's calls
    const canaries = (await t.request('GET', '/v1/rollout/canaries?tool=factorial')).body.items;
    expect(canaries).toContainEqual(expect.objectContaining({ status: 'promoted', previousVersion: 1, canaryVersion: 2 }));
    const prime = listed.body.tools.find((tool: { name: string }) => tool.name === 'prime_factorization');
    expect(prime).toMatchObject({ parameters: { properties: { number: { type: 'integer' } }, required: ['number'] } });
  });

  it('runs the Python example of the docs as shown: the tool registered, one call run, one corrected, one refused', async () => {
    const project = await t.createProject(`python-example-${Date.now().toString(36)}`);
    const example = await runPython((venv as { python: string }).python, [PYTHON_EXAMPLE], {
      TOOLCOACH_URL: t.baseUrl,
      TOOLCOACH_API_KEY: project.apiKey,
      ...TEST_STARTUP_TIMEOUT_ENV,
      PYTHONPATH: SDK_DIR, // the package as the checkout holds it; an agent's project installs it
      PYTHONDONTWRITEBYTECODE: '1',
    });
    if (example.code !== 0) throw new Error(`the example exited with ${example.code}:\n${example.output}`);
    const printed = example.output.trim().split('\n');
    expect(printed.slice(0, 2)).toEqual(['[2, 2, 2, 3, 3, 5]', '[2, 2, 3]']);
    expect(printed[2]).toContain('prime_factorization was not called');

    const tools = await t.request('GET', '/v1/tools?format=raw', { key: project.apiKey });
    expect(tools.body.tools.map((tool: { name: string }) => tool.name)).toEqual(['prime_factorization']);
    const stored = await eventually(async () => {
      const items = (await t.request('GET', '/v1/events?limit=10', { key: project.apiKey })).body.items as StoredEvent[];
      return items.length === 3 ? items : undefined;
    }, 15_000);
    // the three calls may share a millisecond, so they are matched by what they are, not by their order
    const corrected = stored.find((e) => e.correction !== null);
    expect(corrected).toMatchObject({ status: 'success', correction: { original: { numbers: [12] }, corrected: { number: 12 } } });
    expect(stored.map((e) => `${e.status} ${e.agent} ${e.correction === null ? 'as sent' : 'corrected'} ${e.prevented}`).sort()).toEqual([
      'error math-agent as sent true',
      'success math-agent as sent false',
      'success math-agent corrected false',
    ]);
  }, 60_000);
});
