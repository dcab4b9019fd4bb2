import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { Toolcoach } from '../src';
import { wrapAnthropic } from '../src/anthropic';
import { wrapOpenAI } from '../src/openai';
import {
  anthropicEvents,
  anthropicMessage,
  chatCompletion,
  chatCompletionChunks,
  ProviderStandIn,
  responsesEvents,
  responsesResponse,
  ScriptedCall,
} from './provider-stand-in';
import { closedPortUrl, ScriptedServer } from './scripted-server';

// The real `openai` and `@anthropic-ai/sdk` clients against a stand-in that answers in their documented shapes, and
// toolcoach's API scripted (tests/scripted-server.ts): what each wrapped client reports and what its requests carry.

const SCHEMA = {
  type: 'object',
  properties: { a: { type: 'number' }, b: { type: 'number' } },
  required: ['a', 'b'],
  additionalProperties: false,
};
const WARNING = '\nWARNING: b must not be 0.';

/** One of each: a success, a thrown tool error, an unknown tool, schema-invalid and malformed arguments. */
const CALLS: ScriptedCall[] = [
  { id: 'call_ok', name: 'divide', arguments: '{"a": 10, "b": 4}' },
  { id: 'call_zero', name: 'divide', arguments: '{"a": 1, "b": 0}' },
  { id: 'call_unknown', name: 'square_root', arguments: '{"x": 9}' },
  { id: 'call_invalid', name: 'divide', arguments: '{"a": "ten", "b": 2}' },
];
const MALFORMED: ScriptedCall = { id: 'call_malformed', name: 'divide', arguments: '{"a": 1, "b": ' };

let provider: ProviderStandIn;
let registry: ScriptedServer;
let toolcoach: Toolcoach;

beforeEach(async () => {
  provider = await ProviderStandIn.start();
  registry = await ScriptedServer.start();
  registry.answerOtherwise((request) => {
    if (request.url === '/v1/tools:bulk') {
      return { body: { tools: request.body.tools.map((tool: { name: string }) => ({ name: tool.name, version: 3, status: 'created' })) } };
    }
    if (request.url.startsWith('/v1/tools?format=raw')) {
      const registered = registry.requests.filter((r) => r.url === '/v1/tools:bulk').flatMap((r) => r.body.tools);
      const tools = registered.map((tool: { name: string; description: string; parameters: unknown }) => ({
        name: tool.name,
        version: 3,
        baseDescription: tool.description,
        description: tool.description + WARNING,
        warnings: [],
        parameters: tool.parameters,
      }));
      return { body: { format: 'raw', tools, nextCursor: null } };
    }
    return { status: 202, body: { accepted: 1, rejected: [] } };
  });
  toolcoach = new Toolcoach({
    baseUrl: registry.baseUrl,
    apiKey: 'tc_test',
    cacheDir: false,
    flushOnExit: false,
    refreshIntervalMs: false,
  });
});

afterEach(async () => {
  await toolcoach.shutdown(1000);
  await Promise.all([provider.close(), registry.close()]);
});

/** What each scripted call's result is when the agent runs it: divide by zero fails, an unknown name is refused. */
function resultOf(call: { name: string; arguments: string }): { text: string; isError: boolean } {
  if (call.name !== 'divide') return { text: `Error: there is no tool named ${call.name}`, isError: true };
  const { a, b } = JSON.parse(call.arguments) as { a: number; b: number };
  return b === 0 ? { text: 'Error: division by zero', isError: true } : { text: String(a / b), isError: false };
}

async function reported(): Promise<Array<Record<string, unknown>>> {
  await toolcoach.flush(2000);
  return registry.events;
}

function expectOneOfEachOutcome(
  events: Array<Record<string, unknown>>,
  framework: string,
  model: string,
  zeroMessage = 'Error: division by zero',
) {
  const byCall = new Map(events.map((event) => [event.toolCallId, event]));
  expect(events).toHaveLength(4);
  expect(byCall.get('call_ok')).toMatchObject({
    tool: 'divide',
    status: 'success',
    arguments: { a: 10, b: 4 },
    result: '2.5',
    framework,
    model,
    sessionId: 'conversation-1',
    descriptionVersion: 3,
    durationMs: expect.any(Number),
  });
  expect(byCall.get('call_zero')).toMatchObject({ status: 'error', error: { type: 'ToolError', message: zeroMessage } });
  expect(byCall.get('call_unknown')).toMatchObject({
    tool: 'square_root',
    status: 'error',
    arguments: { x: 9 },
    error: { type: 'UnknownTool', message: `Tool "square_root" was not found among the request's tools (divide)` },
  });
  expect(byCall.get('call_invalid')).toMatchObject({
    status: 'error',
    arguments: { a: 'ten', b: 2 },
    error: { type: 'InvalidToolArguments', message: expect.stringContaining('Invalid arguments for tool divide:') },
  });
  expect(byCall.get('call_invalid')).not.toHaveProperty('durationMs');
}

describe('wrapOpenAI, Chat Completions', () => {
  const tools: OpenAI.ChatCompletionTool[] = [
    { type: 'function', function: { name: 'divide', description: 'Divide a by b.', parameters: SCHEMA } },
  ];

  async function converse(stream: boolean) {
    const openai = wrapOpenAI(new OpenAI({ apiKey: 'sk-test', baseURL: provider.openaiBaseUrl, maxRetries: 0 }), toolcoach, {
      session: 'conversation-1',
    });
    const reply = stream ? chatCompletionChunks : chatCompletion;
    provider.answer('/v1/chat/completions', reply('gpt-4.1-mini-2025-04-14', CALLS), reply('gpt-4.1-mini-2025-04-14', [], 'Done.'));
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Divide some numbers.' }];
    for (let turn = 0; turn < 2; turn++) {
      let calls: Array<{ id: string; name: string; arguments: string }>;
      if (stream) {
        const chunks = await openai.chat.completions.create({ model: 'gpt-4.1-mini', messages, tools, stream: true });
        const byIndex = new Map<number, { id: string; name: string; arguments: string }>();
        for await (const chunk of chunks) {
          for (const piece of chunk.choices[0]?.delta.tool_calls ?? []) {
            const call = byIndex.get(piece.index) ?? { id: '', name: '', arguments: '' };
            call.id ||= piece.id ?? '';
            call.name += piece.function?.name ?? '';
            call.arguments += piece.function?.arguments ?? '';
            byIndex.set(piece.index, call);
          }
        }
        calls = [...byIndex.values()];
      } else {
        const completion = await openai.chat.completions.create({ model: 'gpt-4.1-mini', messages, tools });
        calls = (completion.choices[0].message.tool_calls ?? []).flatMap((call) =>
          call.type === 'function' ? [{ id: call.id, ...call.function }] : [],
        );
      }
      if (calls.length === 0) break;
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
      });
      for (const call of calls) messages.push({ role: 'tool', tool_call_id: call.id, content: resultOf(call).text });
    }
  }

  it('reports each call once with its outcome, and sends the live description', async () => {
    await converse(false);
    expectOneOfEachOutcome(await reported(), 'openai-node', 'gpt-4.1-mini-2025-04-14');
    const [first, second] = provider.bodiesOf('/v1/chat/completions');
    expect(first.tools[0].function.description).toBe(`Divide a by b.${WARNING}`);
    expect(second.tools[0].function).toEqual({ name: 'divide', description: `Divide a by b.${WARNING}`, parameters: SCHEMA });
    // the caller's own tool is left as it was, and registered with its own description
    expect(tools[0]).toMatchObject({ function: { description: 'Divide a by b.' } });
    expect(registry.requests.find((r) => r.url === '/v1/tools:bulk')!.body.tools).toEqual([
      { name: 'divide', description: 'Divide a by b.', parameters: SCHEMA },
    ]);
    expect(registry.requests.filter((r) => r.url === '/v1/tools:bulk')).toHaveLength(1);
  });

  it('reads a streamed answer as the caller reads it, with the same reports', async () => {
    await converse(true);
    expectOneOfEachOutcome(await reported(), 'openai-node', 'gpt-4.1-mini-2025-04-14');
    expect(provider.bodiesOf('/v1/chat/completions')[1].tools[0].function.description).toBe(`Divide a by b.${WARNING}`);
  });

  it('reports arguments that are not JSON with the parser words, and a result sent again in later turns only once', async () => {
    const openai = wrapOpenAI(new OpenAI({ apiKey: 'sk-test', baseURL: provider.openaiBaseUrl, maxRetries: 0 }), toolcoach);
    const ok = CALLS[0];
    provider.answer(
      '/v1/chat/completions',
      chatCompletion('gpt-4.1', [MALFORMED, ok]),
      chatCompletion('gpt-4.1', [], 'One more?'),
      chatCompletion('gpt-4.1', [], 'Done.'),
    );
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Divide.' }];
    const first = await openai.chat.completions.create({ model: 'gpt-4.1', messages, tools });
    messages.push(first.choices[0].message, { role: 'tool', tool_call_id: ok.id, content: '2.5' });
    messages.push({ role: 'tool', tool_call_id: MALFORMED.id, content: 'Error: bad JSON' });
    await openai.chat.completions.create({ model: 'gpt-4.1', messages, tools });
    messages.push({ role: 'user', content: 'Thanks.' });
    await openai.chat.completions.create({ model: 'gpt-4.1', messages, tools });

    const events = await reported();
    expect(events.map((event) => [event.toolCallId, event.status])).toEqual([
      ['call_malformed', 'error'],
      ['call_ok', 'success'],
    ]);
    expect(events[0]).toMatchObject({
      arguments: '{"a": 1, "b": ',
      error: { type: 'SyntaxError', message: expect.stringMatching(/^The arguments of divide are not valid JSON: .*JSON/) },
    });
  });

  it('goes through the chat.completions.stream() helper', async () => {
    const openai = wrapOpenAI(new OpenAI({ apiKey: 'sk-test', baseURL: provider.openaiBaseUrl, maxRetries: 0 }), toolcoach);
    provider.answer('/v1/chat/completions', chatCompletionChunks('gpt-4.1', [CALLS[2]]));
    const stream = openai.chat.completions.stream({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'Root of 9?' }], tools });
    const completion = await stream.finalChatCompletion();
    expect(completion.choices[0].message.tool_calls).toHaveLength(1);
    expect(await reported()).toEqual([
      expect.objectContaining({ toolCallId: 'call_unknown', error: expect.objectContaining({ type: 'UnknownTool' }) }),
    ]);
  });
  it('goes through runTools(), which runs the tools and sends their results itself', async () => {
    const openai = wrapOpenAI(new OpenAI({ apiKey: 'sk-test', baseURL: provider.openaiBaseUrl, maxRetries: 0 }), toolcoach);
    provider.answer('/v1/chat/completions', chatCompletion('gpt-4.1', [CALLS[0], CALLS[1]]), chatCompletion('gpt-4.1', [], 'Done.'));
    const runner = openai.chat.completions.runTools({
      model: 'gpt-4.1',
      messages: [{ role: 'user', content: 'Divide.' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'divide',
            description: 'Divide a by b.',
            parameters: SCHEMA,
            parse: JSON.parse,
            function: ({ a, b }: { a: number; b: number }) => (b === 0 ? 'Error: division by zero' : String(a / b)),
          },
        },
      ],
    });
    expect(await runner.finalContent()).toBe('Done.');
    const events = await reported();
    expect(events.map((event) => [event.toolCallId, event.status, event.result ?? event.error])).toEqual([
      ['call_ok', 'success', '2.5'],
      ['call_zero', 'error', { type: 'ToolError', message: 'Error: division by zero' }],
    ]);
    expect(provider.bodiesOf('/v1/chat/completions')[1].tools[0].function.description).toBe(`Divide a by b.${WARNING}`);
  });

  it('goes through parse(), which the SDK builds on create', async () => {
    const openai = wrapOpenAI(new OpenAI({ apiKey: 'sk-test', baseURL: provider.openaiBaseUrl, maxRetries: 0 }), toolcoach);
    provider.answer('/v1/chat/completions', chatCompletion('gpt-4.1', [CALLS[2]]));
    const strict: OpenAI.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'divide', description: 'Divide a by b.', parameters: SCHEMA, strict: true } },
    ];
    const parsed = await openai.chat.completions.parse({
      model: 'gpt-4.1',
      messages: [{ role: 'user', content: 'Root of 9?' }],
      tools: strict,
    });
    expect(parsed.choices[0].message.tool_calls).toHaveLength(1);
    expect((await reported()).map((event) => event.toolCallId)).toEqual(['call_unknown']);
  });
});

describe('registration', () => {
  it('registers the tools a request declares together, once, and a tool again only when its definition changes', async () => {
    const openai = wrapOpenAI(new OpenAI({ apiKey: 'sk-test', baseURL: provider.openaiBaseUrl, maxRetries: 0 }), toolcoach);
    const tool = (name: string, description: string): OpenAI.ChatCompletionTool => ({
      type: 'function',
      function: { name, description, parameters: SCHEMA },
    });
    const ask = (tools: OpenAI.ChatCompletionTool[]) =>
      openai.chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'Hi' }], tools });
    provider.answer('/v1/chat/completions', ...[1, 2, 3].map(() => chatCompletion('gpt-4.1', [], 'Hi.')));
    await ask([tool('add', 'Add.'), tool('divide', 'Divide.'), tool('subtract', 'Subtract.')]);
    await ask([tool('add', 'Add.'), tool('divide', 'Divide.'), tool('subtract', 'Subtract.')]);
    await ask([tool('add', 'Add.'), tool('divide', 'Divide a by b; b is not 0.'), tool('subtract', 'Subtract.')]);
    const registrations = registry.requests
      .filter((r) => r.url === '/v1/tools:bulk')
      .map((r) => r.body.tools.map((t: ToolSent) => t.description));
    expect(registrations).toEqual([['Add.', 'Divide.', 'Subtract.'], ['Divide a by b; b is not 0.']]);
    const sent = provider
      .bodiesOf('/v1/chat/completions')
      .map((body) => body.tools.map((t: { function: ToolSent }) => t.function.description));
    expect(sent.at(-1)).toEqual([`Add.${WARNING}`, `Divide a by b; b is not 0.${WARNING}`, `Subtract.${WARNING}`]);
  });
});

interface ToolSent {
  description: string;
}

describe('wrapOpenAI, Responses API', () => {
  const tools: OpenAI.Responses.FunctionTool[] = [
    { type: 'function', name: 'divide', description: 'Divide a by b.', parameters: SCHEMA, strict: false },
  ];

  it.each([false, true])('reports each call once from function_call items and function_call_output (stream: %s)', async (stream) => {
    const openai = wrapOpenAI(new OpenAI({ apiKey: 'sk-test', baseURL: provider.openaiBaseUrl, maxRetries: 0 }), toolcoach, {
      session: 'conversation-1',
    });
    provider.answer(
      '/v1/responses',
      stream ? responsesEvents('gpt-4.1-mini-2025-04-14', CALLS) : responsesResponse('gpt-4.1-mini-2025-04-14', CALLS),
      responsesResponse('gpt-4.1-mini-2025-04-14', [], 'Done.'),
    );
    let calls: Array<{ call_id: string; name: string; arguments: string }> = [];
    if (stream) {
      const events = await openai.responses.create({ model: 'gpt-4.1-mini', input: 'Divide some numbers.', tools, stream: true });
      for await (const event of events) {
        if (event.type === 'response.output_item.done' && event.item.type === 'function_call') calls.push(event.item);
      }
    } else {
      const response = await openai.responses.create({ model: 'gpt-4.1-mini', input: 'Divide some numbers.', tools });
      calls = response.output.flatMap((item) => (item.type === 'function_call' ? [item] : []));
    }
    expect(calls).toHaveLength(4);
    await openai.responses.create({
      model: 'gpt-4.1-mini',
      previous_response_id: 'resp_standin',
      input: calls.map((call) => ({ type: 'function_call_output' as const, call_id: call.call_id, output: resultOf(call).text })),
      tools,
    });
    expectOneOfEachOutcome(await reported(), 'openai-node', 'gpt-4.1-mini-2025-04-14');
    expect(provider.bodiesOf('/v1/responses')[1].tools[0]).toMatchObject({ name: 'divide', description: `Divide a by b.${WARNING}` });
  });
});

describe('wrapAnthropic', () => {
  const tools: Anthropic.Tool[] = [{ name: 'divide', description: 'Divide a by b.', input_schema: SCHEMA as Anthropic.Tool.InputSchema }];

  type Mode = 'json' | 'stream' | 'helper';
  it.each<Mode>(['json', 'stream', 'helper'])('reports each tool_use once with its tool_result and is_error (%s)', async (mode) => {
    const anthropic = wrapAnthropic(
      new Anthropic({ apiKey: 'sk-ant-test', baseURL: provider.anthropicBaseUrl, maxRetries: 0 }),
      toolcoach,
      {
        session: 'conversation-1',
      },
    );
    const model = 'claude-sonnet-5-5';
    provider.answer('/v1/messages', mode === 'json' ? anthropicMessage(model, CALLS) : anthropicEvents(model, CALLS, 'Let me divide.'));
    provider.answer('/v1/messages', anthropicMessage(model, [], 'Done.'));
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Divide some numbers.' }];
    const request = { model: 'claude-sonnet-5', max_tokens: 1024, messages, tools };
    let content: Anthropic.ContentBlock[] = [];
    if (mode === 'json') content = (await anthropic.messages.create(request)).content;
    if (mode === 'helper') content = (await anthropic.messages.stream(request).finalMessage()).content;
    if (mode === 'stream') {
      const inputs = new Map<number, { id: string; name: string; json: string }>();
      for await (const event of await anthropic.messages.create({ ...request, stream: true })) {
        if (event.type === 'content_block_start' && event.content_block.type === 'tool_use') {
          inputs.set(event.index, { id: event.content_block.id, name: event.content_block.name, json: '' });
        }
        if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta')
          inputs.get(event.index)!.json += event.delta.partial_json;
      }
      content = [...inputs.values()].map(({ id, name, json }) => ({
        type: 'tool_use',
        id,
        name,
        input: JSON.parse(json),
        caller: { type: 'direct' },
      }));
    }
    const uses = content.flatMap((block) => (block.type === 'tool_use' ? [block] : []));
    expect(uses).toHaveLength(4);
    messages.push({ role: 'assistant', content: uses });
    messages.push({
      role: 'user',
      content: uses.map((use) => {
        const outcome = resultOf({ name: use.name, arguments: JSON.stringify(use.input) });
        // the error text alone would not say it failed: is_error does
        return { type: 'tool_result', tool_use_id: use.id, content: outcome.text.replace(/^Error: /, ''), is_error: outcome.isError };
      }),
    });
    await anthropic.messages.create(request);

    expectOneOfEachOutcome(await reported(), 'anthropic-node', model, 'division by zero');
    expect(provider.bodiesOf('/v1/messages')[1].tools).toEqual([
      { name: 'divide', description: `Divide a by b.${WARNING}`, input_schema: SCHEMA },
    ]);
  });
});

describe('a registry that cannot be reached', () => {
  it('sends the tools as given when the registry cannot be reached', async () => {
    const offline = new Toolcoach({
      baseUrl: await closedPortUrl(),
      apiKey: 'tc_test',
      cacheDir: false,
      flushOnExit: false,
      refreshIntervalMs: false,
      logger: { warn: () => undefined },
    });
    const openai = wrapOpenAI(new OpenAI({ apiKey: 'sk-test', baseURL: provider.openaiBaseUrl, maxRetries: 0 }), offline);
    provider.answer('/v1/chat/completions', chatCompletion('gpt-4.1', []));
    const tools: OpenAI.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'divide', description: 'Divide a by b.', parameters: SCHEMA } },
    ];
    const completion = await openai.chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'Hi' }], tools });
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(provider.bodiesOf('/v1/chat/completions')[0].tools[0].function.description).toBe('Divide a by b.');
    await offline.shutdown(10);
  });
});
