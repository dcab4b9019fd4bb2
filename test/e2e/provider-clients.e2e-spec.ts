import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  anthropicEvents,
  anthropicMessage,
  chatCompletion,
  chatCompletionChunks,
  ProviderStandIn,
  Reply,
  ScriptedCall,
} from '../../sdk/test/provider-stand-in';
import { beforeAllAwayFromDayChange, runNightly } from '../support/job-runs';
import { PROVIDER_CLIENT_PROBE, PYTHON_TEST_PACKAGES, PYTHON_TEST_VENV, pythonVenv } from '../support/python-venv';
import { reportSkip } from '../support/skip-report';
import { eventually, startTestApp, TestApp } from '../support/test-app';
import { TEST_STARTUP_TIMEOUT_ENV } from '../support/startup-timeout';

// Issue 36: the OpenAI and Anthropic clients themselves. The documented examples (examples/providers/, TypeScript and Python, shown in
// docs/integrations/openai-anthropic.md) run their agent loops with the real `openai` and `@anthropic-ai/sdk` clients
// against a local stand-in that answers in each provider's documented shape, on the default configuration: every call
// is stored once with its category, the tools are registered, and after the nightly the warning it applied is in the
// `tools` of the next conversation's request as the stand-in received it.

// each test runs Python or Node examples in processes of their own: on a busy 2-core box, importing the provider
// clients alone takes seconds
jest.setTimeout(120_000);
const CONVERSATIONS = 6;
const REPO_DIR = join(__dirname, '..', '..');
const SDK_PYTHON_DIR = join(REPO_DIR, 'sdk-python');
const EXAMPLES_DIR = join(REPO_DIR, 'examples', 'providers');
const today = () => new Date().toISOString().slice(0, 10);

/** One of each per conversation: a success, a thrown tool error, an unknown tool, a schema-invalid call. */
function callsOf(prefix: string): ScriptedCall[] {
  return [
    { id: `${prefix}_ok`, name: 'divide', arguments: '{"a": 10, "b": 4}' },
    { id: `${prefix}_zero`, name: 'divide', arguments: '{"a": 1, "b": 0}' },
    { id: `${prefix}_unknown`, name: 'square_root', arguments: '{"x": 9}' },
    { id: `${prefix}_invalid`, name: 'divide', arguments: '{"a": "ten", "b": 2}' },
  ];
}

/** One documented example: runs conversations (each with the scripted answers queued first) and delivers its reports. */
interface ExampleRunner {
  start(env: Record<string, string>): void;
  /** Runs one conversation per session, in order, and answers their final texts. */
  converse(sessions: string[]): Promise<string[]>;
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/** A TypeScript example, loaded in this process: it reads its settings from the environment when it is loaded. */
function typescriptExample(path: string): ExampleRunner {
  let example: {
    toolcoach: { flush(timeoutMs?: number): Promise<unknown>; shutdown(timeoutMs?: number): Promise<unknown> };
    converse(question: string, session: string): Promise<string | null>;
  };
  return {
    start(env) {
      Object.assign(process.env, env);
      jest.isolateModules(() => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        example = require(path);
      });
    },
    async converse(sessions) {
      const answers: string[] = [];
      for (const session of sessions) answers.push(String(await example.converse('What is 10 divided by 4?', session)));
      return answers;
    },
    flush: async () => void (await example.toolcoach.flush(10_000)),
    stop: async () => void (await example?.toolcoach.shutdown(2000)),
  };
}

/** A Python example (examples/providers/*.py), run in the shared test venv with the SDK from sdk-python/. */
function pythonExample(module: string): ExampleRunner {
  let env: Record<string, string> = {};
  return {
    start(settings) {
      env = { ...settings, PYTHONPATH: [SDK_PYTHON_DIR, EXAMPLES_DIR].join(':'), PYTHONDONTWRITEBYTECODE: '1' };
    },
    async converse(sessions) {
      // the reporter flushes at exit (atexit); the flush here makes it part of the run's outcome
      const source = [
        'import json, sys',
        `import ${module} as example`,
        `answers = [example.converse("What is 10 divided by 4?", session) for session in json.loads(sys.argv[1])]`,
        'assert example.reporter.flush(10), "the reporter could not deliver every event"',
        'print(json.dumps(answers))',
      ].join('\n');
      const run = await runProcess((venv as { python: string }).python, ['-c', source, JSON.stringify(sessions)], env);
      if (run.code !== 0) throw new Error(`python exited with ${run.code}:\n${run.output}`);
      return JSON.parse(run.output.trim().split('\n').at(-1)!) as string[];
    },
    flush: async () => undefined,
    stop: async () => undefined,
  };
}

function runProcess(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd = REPO_DIR,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

interface Provider {
  name: string;
  example: () => ExampleRunner;
  path: string;
  prefix: string;
  model: string;
  /** The model's first answer (the four calls) and its last (text), in the provider's shape. */
  replies: (calls: ScriptedCall[]) => Reply[];
  descriptionOf: (body: { tools: Array<Record<string, unknown>> }) => unknown;
}

const OPENAI_MODEL = 'gpt-4.1-mini-2025-04-14';
const ANTHROPIC_MODEL = 'claude-sonnet-5-5';
const chatDescription = (body: { tools: Array<Record<string, unknown>> }) =>
  (body.tools[0].function as { description: string }).description;
const messagesDescription = (body: { tools: Array<Record<string, unknown>> }) => body.tools[0].description;

const TYPESCRIPT: Provider[] = [
  {
    name: 'openai (Chat Completions), TypeScript',
    example: () => typescriptExample('../../examples/providers/openai-chat'),
    path: '/v1/chat/completions',
    prefix: 'call',
    model: OPENAI_MODEL,
    replies: (calls) => [chatCompletion(OPENAI_MODEL, calls), chatCompletion(OPENAI_MODEL, [], '2.5')],
    descriptionOf: chatDescription,
  },
  {
    name: '@anthropic-ai/sdk (Messages, streamed), TypeScript',
    example: () => typescriptExample('../../examples/providers/anthropic-messages'),
    path: '/v1/messages',
    prefix: 'toolu',
    model: ANTHROPIC_MODEL,
    replies: (calls) => [anthropicEvents(ANTHROPIC_MODEL, calls), anthropicEvents(ANTHROPIC_MODEL, [], '2.5')],
    descriptionOf: messagesDescription,
  },
];

const PYTHON: Provider[] = [
  {
    name: 'openai (Chat Completions, streamed), Python',
    example: () => pythonExample('openai_chat'),
    path: '/v1/chat/completions',
    prefix: 'py_call',
    model: OPENAI_MODEL,
    replies: (calls) => [chatCompletionChunks(OPENAI_MODEL, calls), chatCompletionChunks(OPENAI_MODEL, [], '2.5')],
    descriptionOf: chatDescription,
  },
  {
    name: 'anthropic (Messages), Python',
    example: () => pythonExample('anthropic_messages'),
    path: '/v1/messages',
    prefix: 'py_toolu',
    model: ANTHROPIC_MODEL,
    replies: (calls) => [anthropicMessage(ANTHROPIC_MODEL, calls), anthropicMessage(ANTHROPIC_MODEL, [], '2.5')],
    descriptionOf: messagesDescription,
  },
];

const venv = pythonVenv(PYTHON_TEST_VENV, PYTHON_TEST_PACKAGES, PROVIDER_CLIENT_PROBE);
if (!venv.ok) reportSkip(`the Python openai and anthropic examples (test/e2e/provider-clients.e2e-spec.ts): ${venv.reason}`);
const PROVIDERS = venv.ok ? [...TYPESCRIPT, ...PYTHON] : TYPESCRIPT;

let t: TestApp;
let standIn: ProviderStandIn;
beforeAllAwayFromDayChange(async () => {
  // calls are stamped at the real time and the nightly runs for today
  t = await startTestApp();
  standIn = await ProviderStandIn.start();
});
afterAll(async () => {
  await standIn?.close();
  await t?.close();
});

describe.each(PROVIDERS)('the $name example against the running app', (provider) => {
  const example = provider.example();
  let apiKey: string;
  const api = (path: string) => t.request('GET', path, { key: apiKey });

  beforeAll(async () => {
    // a project per example: each has its own calls, tools and nightly
    ({ apiKey } = await t.createProject(`providers-${provider.prefix}`));
    example.start({
      TOOLCOACH_URL: t.baseUrl,
      TOOLCOACH_API_KEY: apiKey,
      ...TEST_STARTUP_TIMEOUT_ENV,
      OPENAI_API_KEY: 'sk-stand-in',
      OPENAI_BASE_URL: standIn.openaiBaseUrl,
      ANTHROPIC_API_KEY: 'sk-ant-stand-in',
      ANTHROPIC_BASE_URL: standIn.anthropicBaseUrl,
    });
  });
  afterAll(() => example.stop());

  const storedCalls = async () => {
    const items: Array<Record<string, unknown>> = [];
    for (const tool of ['divide', 'square_root']) items.push(...(await api(`/v1/events?tool=${tool}&limit=200`)).body.items);
    return items;
  };

  it('stores every call of its conversations exactly once, with its category', async () => {
    const sessions = Array.from({ length: CONVERSATIONS }, (_, conversation) => `conversation-${conversation}`);
    for (let conversation = 0; conversation < CONVERSATIONS; conversation++) {
      standIn.answer(provider.path, ...provider.replies(callsOf(`${provider.prefix}_${conversation}`)));
    }
    expect(await example.converse(sessions)).toEqual(sessions.map(() => '2.5'));
    await example.flush();
    const stored = await eventually(async () => {
      const items = await storedCalls();
      return items.length >= 4 * CONVERSATIONS && items.every((item) => item.status === 'success' || item.category) ? items : undefined;
    }, 30_000);
    expect(stored).toHaveLength(4 * CONVERSATIONS);
    const byCall = new Map(stored.map((event) => [event.toolCallId, event]));
    expect(byCall.size).toBe(4 * CONVERSATIONS);
    const outcomes = sessions.map((_, conversation) =>
      callsOf(`${provider.prefix}_${conversation}`).map((call) => [byCall.get(call.id)?.status, byCall.get(call.id)?.category ?? null]),
    );
    expect(outcomes).toEqual(
      sessions.map(() => [
        ['success', null],
        ['error', 'out_of_range'],
        ['error', 'unknown_tool'],
        ['error', 'argument_mismatch'],
      ]),
    );
    const [ok, zero, unknown, invalid] = callsOf(`${provider.prefix}_0`).map((call) => byCall.get(call.id));
    expect(ok).toMatchObject({ status: 'success', tool: 'divide', arguments: { a: 10, b: 4 }, result: '2.5', sessionId: 'conversation-0' });
    expect(zero).toMatchObject({ status: 'error', tool: 'divide', category: 'out_of_range' });
    expect((zero as { error: { message: string } }).error.message).toMatch(/division by zero/);
    expect(unknown).toMatchObject({ status: 'error', tool: 'square_root', category: 'unknown_tool' });
    expect(invalid).toMatchObject({
      status: 'error',
      tool: 'divide',
      category: 'argument_mismatch',
      subtype: 'type_mismatch',
      argumentPath: '/a',
      model: provider.model,
    });
  });

  it('registered the tool the requests declared', async () => {
    const { body } = await api('/v1/tools/divide/description');
    expect(body).toMatchObject({ name: 'divide', baseDescription: 'Divide the number a by the number b.' });
    expect(body.parameters).toMatchObject({ required: ['a', 'b'], properties: { a: { type: 'number' } } });
  });

  it('sends the warning the nightly applied in the next conversation`s request, as the provider receives it', async () => {
    // the nightly of this provider's project (a request's key names its project)
    const run = await runNightly({ request: (method, path) => t.request(method, path, { key: apiKey }) }, today());
    expect(run.body).toMatchObject({ status: 'succeeded' });
    const applied = (await api('/v1/recommendations?status=applied&limit=50')).body.items.filter(
      (recommendation: { tool: string }) => recommendation.tool === 'divide',
    );
    expect(applied.length).toBeGreaterThan(0);
    const served = (await api('/v1/tools/divide/description')).body.description as string;
    for (const recommendation of applied) expect(served).toContain(recommendation.text);
    // the schema-invalid calls' lesson, learned from the calls the wrapper reported before they reached a tool
    expect(applied).toContainEqual(expect.objectContaining({ kind: 'type_mismatch', text: "'a' must be a number, not a string." }));

    const before = standIn.bodiesOf(provider.path).length;
    standIn.answer(provider.path, ...provider.replies([{ id: `${provider.prefix}_after`, name: 'divide', arguments: '{"a": 9, "b": 3}' }]));
    await example.converse(['conversation-after-the-nightly']);
    const [first, second] = standIn.bodiesOf(provider.path).slice(before);
    expect(provider.descriptionOf(first)).toBe(served);
    expect(provider.descriptionOf(first)).toContain("'a' must be a number, not a string.");
    expect(provider.descriptionOf(second)).toBe(served);
  });
});

(venv.ok ? describe : describe.skip)('the Python wrappers (sdk-python/tests/test_providers.py) in the test venv', () => {
  it('pass their unittests with the real openai and anthropic packages, none skipped', async () => {
    const run = await runProcess(
      (venv as { python: string }).python,
      ['-m', 'unittest', '-v', 'tests.test_providers'],
      {
        PYTHONDONTWRITEBYTECODE: '1',
      },
      SDK_PYTHON_DIR,
    );
    if (run.code !== 0) throw new Error(`python -m unittest exited with ${run.code}:\n${run.output}`);
    const outcomes = [...run.output.matchAll(/^test_\w+ \(tests\.test_providers\.\w+\.test_\w+\) \.\.\. (\w+)/gm)].map(
      ([, outcome]) => outcome,
    );
    expect(outcomes).toEqual(Array.from({ length: 8 }, () => 'ok'));
  });
});

it('shows in docs/integrations/openai-anthropic.md exactly the examples this file runs', () => {
  const page = readFileSync(join(REPO_DIR, 'docs', 'integrations', 'openai-anthropic.md'), 'utf8');
  const blocks = [...page.matchAll(/```(?:ts|python) example=(\S+)\n([\s\S]*?)```/g)].map(([, path, text]) => ({ path, text }));
  expect(blocks.map(({ path }) => path)).toEqual([
    'examples/providers/openai-chat.ts',
    'examples/providers/anthropic-messages.ts',
    'examples/providers/openai_chat.py',
    'examples/providers/anthropic_messages.py',
  ]);
  for (const { path, text } of blocks) expect({ path, text }).toEqual({ path, text: readFileSync(join(REPO_DIR, path), 'utf8') });
  expect(page).not.toMatch(/```(?:ts|typescript|python|js)\n/);
});
