import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/**
 * A local HTTP server that answers as the OpenAI and Anthropic APIs do, for the real `openai` and `@anthropic-ai/sdk`
 * clients pointed at it with `baseURL`: JSON bodies, or server-sent events for `stream: true`. A test queues the
 * answers of the next requests per path and reads back every request body the clients sent.
 *
 * The shapes are the providers' documented ones (/work/shared/reference/protocols.md section 2, and the SDKs' types:
 * openai `ChatCompletion`, `ChatCompletionChunk`, `Response` and `ResponseStreamEvent`; @anthropic-ai/sdk `Message`
 * and `RawMessageStreamEvent`), built by the functions below.
 */
export class ProviderStandIn {
  readonly requests: Array<{ path: string; body: Record<string, unknown> }> = [];
  private readonly queued = new Map<string, Reply[]>();
  private readonly server: Server;

  private constructor() {
    this.server = createServer((request, response) => void this.handle(request, response));
  }

  static async start(): Promise<ProviderStandIn> {
    const standIn = new ProviderStandIn();
    await new Promise<void>((resolve) => standIn.server.listen(0, '127.0.0.1', resolve));
    return standIn;
  }

  /** The base URL for `new OpenAI({ baseURL })` (its paths are /chat/completions, /responses). */
  get openaiBaseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  /** The base URL for `new Anthropic({ baseURL })` (it adds /v1/messages). */
  get anthropicBaseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Queues the answers of the next requests to `path` (e.g. /v1/chat/completions), in order. */
  answer(path: string, ...replies: Reply[]): this {
    this.queued.set(path, [...(this.queued.get(path) ?? []), ...replies]);
    return this;
  }

  /** The bodies the clients sent to `path`, in order. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the sent JSON loosely and assert with expect
  bodiesOf(path: string): any[] {
    return this.requests.filter((request) => request.path === path).map((request) => request.body);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let text = '';
    for await (const chunk of request) text += chunk;
    const path = (request.url ?? '').split('?')[0];
    this.requests.push({ path, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} });
    const reply = this.queued.get(path)?.shift();
    if (!reply) {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `the stand-in has no answer queued for ${path}` } }));
      return;
    }
    if ('json' in reply) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(reply.json));
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const { event, data } of reply.sse) {
      response.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    }
    response.end();
  }
}

export type Reply = { json: unknown } | { sse: Array<{ event?: string; data: unknown }> };

export interface ScriptedCall {
  id: string;
  name: string;
  /** JSON text as the model wrote it (OpenAI sends it as text; Anthropic's answers parse it into `input`). */
  arguments: string;
}

const CREATED = 1_764_000_000;

/** openai `ChatCompletion`: `choices[0].message.tool_calls[i] = {id, type: "function", function: {name, arguments}}`. */
export function chatCompletion(model: string, calls: ScriptedCall[], text: string | null = null): Reply {
  const message = {
    role: 'assistant',
    content: text,
    refusal: null,
    ...(calls.length > 0
      ? { tool_calls: calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })) }
      : {}),
  };
  return {
    json: {
      id: 'chatcmpl-standin',
      object: 'chat.completion',
      created: CREATED,
      model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: calls.length > 0 ? 'tool_calls' : 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    },
  };
}

/**
 * openai `ChatCompletionChunk`s: the first piece of each call carries `{index, id, type, function: {name, arguments:
 * ""}}`, then its arguments arrive in pieces `{index, function: {arguments}}`; the stream ends with `data: [DONE]`.
 */
export function chatCompletionChunks(model: string, calls: ScriptedCall[], text: string | null = null): Reply {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    data: {
      id: 'chatcmpl-standin',
      object: 'chat.completion.chunk',
      created: CREATED,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    },
  });
  const events = [chunk({ role: 'assistant', content: text === null ? null : '' })];
  if (text) events.push(chunk({ content: text }));
  calls.forEach((call, index) => {
    events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of halves(call.arguments)) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  events.push(chunk({}, calls.length > 0 ? 'tool_calls' : 'stop'));
  return { sse: [...events, { data: '[DONE]' }] };
}

/** openai `Response`: output items `{type: "function_call", id, call_id, name, arguments, status}`. */
export function responsesResponse(model: string, calls: ScriptedCall[], text: string | null = null): Reply {
  return { json: responseObject(model, calls, text, 'completed') };
}

/**
 * openai `ResponseStreamEvent`s: `response.created`, each function call as `response.output_item.added`, its argument
 * pieces as `response.function_call_arguments.delta`, `response.output_item.done` with the whole item, then
 * `response.completed`. Each SSE record names its event.
 */
export function responsesEvents(model: string, calls: ScriptedCall[]): Reply {
  const events: Array<{ event: string; data: unknown }> = [];
  let sequence = 0;
  const add = (type: string, fields: Record<string, unknown>) =>
    events.push({ event: type, data: { type, sequence_number: sequence++, ...fields } });
  add('response.created', { response: responseObject(model, [], null, 'in_progress') });
  calls.forEach((call, index) => {
    const item = functionCallItem(call);
    add('response.output_item.added', { output_index: index, item: { ...item, arguments: '', status: 'in_progress' } });
    for (const piece of halves(call.arguments))
      add('response.function_call_arguments.delta', { output_index: index, item_id: item.id, delta: piece });
    add('response.function_call_arguments.done', { output_index: index, item_id: item.id, arguments: call.arguments });
    add('response.output_item.done', { output_index: index, item });
  });
  add('response.completed', { response: responseObject(model, calls, null, 'completed') });
  return { sse: events };
}

function functionCallItem(call: ScriptedCall) {
  return { type: 'function_call', id: `fc_${call.id}`, call_id: call.id, name: call.name, arguments: call.arguments, status: 'completed' };
}

function responseObject(model: string, calls: ScriptedCall[], text: string | null, status: string) {
  const message =
    text === null
      ? []
      : [
          {
            type: 'message',
            id: 'msg_standin',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text, annotations: [] }],
          },
        ];
  return {
    id: 'resp_standin',
    object: 'response',
    created_at: CREATED,
    status,
    model,
    output: [...message, ...calls.map(functionCallItem)],
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    error: null,
    incomplete_details: null,
    instructions: null,
    metadata: {},
    temperature: 1,
    top_p: 1,
    usage: {
      input_tokens: 10,
      output_tokens: 5,
      total_tokens: 15,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
  };
}

/** @anthropic-ai/sdk `Message`: content blocks `{type: "tool_use", id, name, input}`, `stop_reason: "tool_use"`. */
export function anthropicMessage(model: string, calls: ScriptedCall[], text: string | null = null): Reply {
  return {
    json: messageObject(
      model,
      [...textBlock(text), ...calls.map((call) => toolUseBlock(call, JSON.parse(call.arguments)))],
      calls.length > 0,
    ),
  };
}

/**
 * @anthropic-ai/sdk `RawMessageStreamEvent`s: `message_start`, per block `content_block_start` (a tool_use block with
 * `input: {}`), `content_block_delta` (`{type: "input_json_delta", partial_json}`) and `content_block_stop`, then
 * `message_delta` with the stop reason and `message_stop`. Each SSE record names its event.
 */
export function anthropicEvents(model: string, calls: ScriptedCall[], text: string | null = null): Reply {
  const events: Array<{ event: string; data: unknown }> = [];
  const add = (type: string, fields: Record<string, unknown>) => events.push({ event: type, data: { type, ...fields } });
  add('message_start', { message: { ...messageObject(model, [], calls.length > 0), stop_reason: null } });
  let index = 0;
  if (text) {
    add('content_block_start', { index, content_block: { type: 'text', text: '', citations: null } });
    add('content_block_delta', { index, delta: { type: 'text_delta', text } });
    add('content_block_stop', { index: index++ });
  }
  for (const call of calls) {
    add('content_block_start', { index, content_block: toolUseBlock(call, {}) });
    for (const piece of halves(call.arguments))
      add('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
    add('content_block_stop', { index: index++ });
  }
  add('message_delta', {
    delta: { stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  add('message_stop', {});
  return { sse: events };
}

function textBlock(text: string | null) {
  return text === null ? [] : [{ type: 'text', text, citations: null }];
}

function toolUseBlock(call: ScriptedCall, input: unknown) {
  return { type: 'tool_use', id: call.id, name: call.name, input };
}

function messageObject(model: string, content: unknown[], isToolUse: boolean) {
  return {
    id: 'msg_standin',
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: isToolUse ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

/** Arguments streamed in two pieces, as models stream them: neither piece is JSON on its own. */
function halves(text: string): string[] {
  if (text.length < 2) return [text];
  const middle = Math.floor(text.length / 2);
  return [text.slice(0, middle), text.slice(middle)];
}
