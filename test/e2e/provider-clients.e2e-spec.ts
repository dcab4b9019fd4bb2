import { anthropicEvents, chatCompletion, ProviderStandIn, Reply, ScriptedCall } from '../../sdk/test/provider-stand-in';
import { awayFromDayChange, runNightly } from '../support/job-runs';
import { eventually, startTestApp, TestApp } from '../support/test-app';

// Issue 36: the OpenAI and Anthropic clients themselves. The documented examples (examples/providers/*.ts, shown in
// docs/integrations/openai-anthropic.md) run their agent loops with the real `openai` and `@anthropic-ai/sdk` clients
// against a local stand-in that answers in each provider's documented shape, on the default configuration: every call
// is stored once with its category, the tools are registered, and after the nightly the warning it applied is in the
// `tools` of the next conversation's request as the stand-in received it.

const CONVERSATIONS = 6;
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

interface Example {
  toolcoach: { flush(timeoutMs?: number): Promise<unknown>; shutdown(timeoutMs?: number): Promise<unknown> };
  converse(question: string, session: string): Promise<unknown>;
}

interface Provider {
  name: string;
  example: string;
  path: string;
  prefix: string;
  /** The model's first answer (the four calls) and its last (text), in the provider's shape. */
  replies: (calls: ScriptedCall[]) => Reply[];
  descriptionOf: (body: { tools: Array<Record<string, unknown>> }) => unknown;
}

const PROVIDERS: Provider[] = [
  {
    name: 'openai (Chat Completions)',
    example: '../../examples/providers/openai-chat',
    path: '/v1/chat/completions',
    prefix: 'call',
    replies: (calls) => [chatCompletion('gpt-4.1-mini-2025-04-14', calls), chatCompletion('gpt-4.1-mini-2025-04-14', [], '2.5')],
    descriptionOf: (body) => (body.tools[0].function as { description: string }).description,
  },
  {
    name: '@anthropic-ai/sdk (Messages, streamed)',
    example: '../../examples/providers/anthropic-messages',
    path: '/v1/messages',
    prefix: 'toolu',
    replies: (calls) => [anthropicEvents('claude-sonnet-5-5', calls), anthropicEvents('claude-sonnet-5-5', [], '2.5')],
    descriptionOf: (body) => body.tools[0].description,
  },
];

let t: TestApp;
let standIn: ProviderStandIn;
beforeAll(async () => {
  // calls are stamped at the real time and the nightly runs for today
  await awayFromDayChange();
  t = await startTestApp();
  standIn = await ProviderStandIn.start();
});
afterAll(async () => {
  await standIn?.close();
  await t?.close();
});

describe.each(PROVIDERS)('the $name example against the running app', (provider) => {
  let example: Example;
  let apiKey: string;
  const api = (path: string) => t.request('GET', path, { key: apiKey });

  beforeAll(async () => {
    ({ apiKey } = await t.createProject(`providers-${provider.prefix}`));
    Object.assign(process.env, {
      TOOLCOACH_URL: t.baseUrl,
      TOOLCOACH_API_KEY: apiKey,
      OPENAI_API_KEY: 'sk-stand-in',
      OPENAI_BASE_URL: standIn.openaiBaseUrl,
      ANTHROPIC_API_KEY: 'sk-ant-stand-in',
      ANTHROPIC_BASE_URL: standIn.anthropicBaseUrl,
    });
    // the example reads its settings from the environment when it is loaded
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      example = require(provider.example) as Example;
    });
  });
  afterAll(() => example?.toolcoach.shutdown(2000));

  const storedCalls = async () => {
    const items: Array<Record<string, unknown>> = [];
    for (const tool of ['divide', 'square_root']) items.push(...(await api(`/v1/events?tool=${tool}&limit=200`)).body.items);
    return items;
  };

  it('stores every call of its conversations exactly once, with its category', async () => {
    for (let conversation = 0; conversation < CONVERSATIONS; conversation++) {
      standIn.answer(provider.path, ...provider.replies(callsOf(`${provider.prefix}_${conversation}`)));
      expect(await example.converse('What is 10 divided by 4?', `conversation-${conversation}`)).toBe('2.5');
    }
    await example.toolcoach.flush(10_000);
    const stored = await eventually(async () => {
      const items = await storedCalls();
      return items.length >= 4 * CONVERSATIONS && items.every((item) => item.status === 'success' || item.category) ? items : undefined;
    }, 30_000);
    expect(stored).toHaveLength(4 * CONVERSATIONS);
    const byCall = new Map(stored.map((event) => [event.toolCallId, event]));
    expect(byCall.size).toBe(4 * CONVERSATIONS);
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
      model: provider.prefix === 'call' ? 'gpt-4.1-mini-2025-04-14' : 'claude-sonnet-5-5',
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

    const before = standIn.bodiesOf(provider.path).length;
    standIn.answer(provider.path, ...provider.replies([{ id: `${provider.prefix}_after`, name: 'divide', arguments: '{"a": 9, "b": 3}' }]));
    await example.converse('What is 9 divided by 3?', 'conversation-after-the-nightly');
    const [first, second] = standIn.bodiesOf(provider.path).slice(before);
    expect(provider.descriptionOf(first)).toBe(served);
    expect(provider.descriptionOf(second)).toBe(served);
  });
});
