import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { reportSkip } from '../support/skip-report';
import { eventually, startTestApp, TestApp } from '../support/test-app';
import { TEST_STARTUP_TIMEOUT_ENV } from '../support/startup-timeout';

const SDK_DIR = join(__dirname, '..', '..', 'sdk-python');
const hasPython = spawnSync('python3', ['--version']).status === 0;
if (!hasPython) reportSkip('the Python SDK tests (test/e2e/python-sdk.e2e-spec.ts): python3 not found');
const describeWithPython = hasPython ? describe : describe.skip;

function runPython(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', args, { cwd: SDK_DIR, env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describeWithPython('Python SDK (sdk-python) against the running app', () => {
  let t: TestApp;
  let run: { code: number | null; output: string };
  beforeAll(async () => {
    t = await startTestApp();
    run = await runPython(['-m', 'unittest', 'discover', '-s', 'tests', '-v'], {
      TOOLCOACH_URL: t.baseUrl,
      TOOLCOACH_API_KEY: t.apiKey,
      ...TEST_STARTUP_TIMEOUT_ENV,
      PYTHONDONTWRITEBYTECODE: '1',
    });
  }, 120_000);
  afterAll(() => t.close());

  it('passes its unittest suite, backend tests included', () => {
    if (run.code !== 0) throw new Error(`python3 -m unittest exited with ${run.code}:\n${run.output}`);
    expect(run.output).toMatch(/\nOK\b/);
    expect(run.output).not.toMatch(/test_tool_node_failures_arrive_categorized .*skipped/);
  });

  const eventsOf = async (tool: string) => {
    const response = await t.request('GET', `/v1/events?tool=${tool}&limit=200`);
    expect(response.status).toBe(200);
    return response.body.items as Array<Record<string, unknown> & { error?: { message: string } }>;
  };

  it('delivered the pydantic validation failure as LangGraph ToolNode words it, categorized', async () => {
    const events = await eventually(async () => {
      const stored = await eventsOf('add');
      return stored.some((e) => e.toolCallId === 'call_type' && e.category) ? stored : undefined;
    });
    const invalid = events.find((e) => e.toolCallId === 'call_type')!;
    expect(invalid).toMatchObject({
      status: 'error',
      framework: 'langchain-python',
      agent: 'python-sdk-e2e',
      arguments: { a: 'x', b: 2 },
      category: 'argument_mismatch',
      subtype: 'type_mismatch',
      argumentPath: '/a',
    });
    expect(invalid.error).toMatchObject({ type: 'ToolInvocationError' });
    expect(invalid.error?.message).toBe(
      "Error invoking tool 'add' with kwargs {'a': 'x', 'b': 2} with error:\n" +
        ' a: Input should be a valid integer, unable to parse string as an integer\n' +
        ' Please fix the error and try again.',
    );
    expect(events.find((e) => e.toolCallId === 'call_missing')).toMatchObject({
      category: 'argument_mismatch',
      subtype: 'missing_argument',
    });
    expect(events.find((e) => e.toolCallId === 'call_ok')).toMatchObject({ status: 'success', result: '3' });
  });

  it('delivered the unknown tool name LangGraph answered without running a tool, categorized', async () => {
    const [unknown] = await eventsOf('nope');
    expect(unknown).toMatchObject({
      status: 'error',
      toolCallId: 'call_unknown',
      category: 'unknown_tool',
      error: { type: 'ToolNotFoundError', message: 'Error: nope is not a valid tool, try one of [add, divide].' },
    });
  });

  it('recorded the live description version load_tools applied', async () => {
    const [divide] = await eventsOf('divide');
    expect(divide).toMatchObject({ status: 'error', error: { type: 'ZeroDivisionError' } });
    expect(divide.descriptionVersion).toBeGreaterThanOrEqual(2);
  });
});
