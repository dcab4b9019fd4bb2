// @toolcoach/sdk/openai: the `openai` client's tool calls, for Chat Completions and the Responses API, streaming or
// not (docs/integrations/openai-anthropic.md). Shapes (openai-node, src/resources/chat/completions/completions.ts and
// src/resources/responses/responses.ts): a call is `tool_calls[i] = {id, type: "function", function: {name,
// arguments}}` with `arguments` JSON text, or an output item `{type: "function_call", call_id, name, arguments}`; its
// result comes back as `{role: "tool", tool_call_id, content}` or an input item `{type: "function_call_output",
// call_id, output}`, neither with an error flag. Streamed, a call arrives as `delta.tool_calls[i] = {index, id?,
// function: {name?, arguments?}}` pieces, or whole in `response.output_item.done` events.
import { DeclaredTool, ModelToolCall, ProviderCallTracker, ProviderWrapperOptions, ReturnedResult } from './provider-calls';
import { observeStream, PrepareRequest, wrapClient } from './provider-client';
import { arrayOf, objectOf, stringOr, textOf } from './loose-json';
import type { Toolcoach } from './toolcoach';

export type { ProviderWrapperOptions } from './provider-calls';

const FRAMEWORK = 'openai-node';

/**
 * Reports the tool calls an `openai` client's `chat.completions.create` and `responses.create` make (and the
 * `stream`, `parse` and `runTools` helpers built on them), each once with its outcome, and sends each request's function
 * tools with their live descriptions. Answers a wrapped client; `client` is not changed.
 */
export function wrapOpenAI<C extends object>(client: C, toolcoach: Toolcoach, options: ProviderWrapperOptions = {}): C {
  const tracker = new ProviderCallTracker(toolcoach, FRAMEWORK, options);
  return wrapClient(client, {
    'chat.completions.create': prepareChatCompletion(tracker),
    'responses.create': prepareResponse(tracker),
  });
}

function prepareChatCompletion(tracker: ProviderCallTracker): PrepareRequest {
  return async (body, client) => {
    const declared = arrayOf(body.tools).flatMap(chatTool);
    const results = arrayOf(body.messages).flatMap(chatToolResult);
    const descriptions = await tracker.prepareRequest(declared, results);
    const tools = arrayOf(body.tools).map((tool) => {
      const fn = objectOf(objectOf(tool).function);
      const served = descriptions.get(String(fn.name));
      return served === undefined || objectOf(tool).type !== 'function'
        ? tool
        : { ...objectOf(tool), function: { ...fn, description: served } };
    });
    const sent = descriptions.size > 0 ? { ...body, tools } : body;
    if (body.stream === true) {
      return { body: sent, onData: (stream) => observeStream(stream, client, chatStreamObserver(tracker, declared, body.model)) };
    }
    return {
      body: sent,
      onData: (completion) => {
        const answer = objectOf(completion);
        const calls = arrayOf(objectOf(objectOf(arrayOf(answer.choices)[0]).message).tool_calls).flatMap(chatToolCall);
        tracker.recordCalls(calls, stringOr(answer.model, body.model), declared);
        return completion;
      },
    };
  };
}

function chatTool(tool: unknown): DeclaredTool[] {
  const { type, function: fn } = objectOf(tool);
  const { name, description, parameters } = objectOf(fn);
  if (type !== 'function' || typeof name !== 'string') return [];
  return [{ name, description: typeof description === 'string' ? description : '', parameters: objectOf(parameters) }];
}

function chatToolResult(message: unknown): ReturnedResult[] {
  const { role, tool_call_id: callId, content } = objectOf(message);
  if (role !== 'tool' || typeof callId !== 'string') return [];
  return [{ callId, output: textOf(content), isError: undefined }];
}

function chatToolCall(call: unknown): ModelToolCall[] {
  const { id, type, function: fn } = objectOf(call);
  const { name, arguments: args } = objectOf(fn);
  if (type !== 'function' || typeof name !== 'string') return [];
  return [{ id: typeof id === 'string' ? id : '', name, arguments: args }];
}

/** Streamed calls come in pieces keyed by choice and `index`: the first piece names the call, the rest add arguments. */
function chatStreamObserver(tracker: ProviderCallTracker, declared: DeclaredTool[], requestedModel: unknown) {
  const calls = new Map<string, { id: string; name: string; arguments: string }>();
  let model = stringOr(undefined, requestedModel);
  return {
    onEvent(chunk: unknown) {
      const { model: chunkModel, choices } = objectOf(chunk);
      if (typeof chunkModel === 'string' && chunkModel) model = chunkModel;
      for (const choice of arrayOf(choices)) {
        const { index: choiceIndex, delta } = objectOf(choice);
        for (const piece of arrayOf(objectOf(delta).tool_calls)) {
          const { index, id, function: fn } = objectOf(piece);
          const { name, arguments: args } = objectOf(fn);
          const key = `${String(choiceIndex)}:${String(index)}`;
          const call = calls.get(key) ?? { id: '', name: '', arguments: '' };
          if (typeof id === 'string' && id) call.id = id;
          if (typeof name === 'string' && name) call.name += name;
          if (typeof args === 'string') call.arguments += args;
          calls.set(key, call);
        }
      }
    },
    onEnd() {
      tracker.recordCalls([...calls.values()], model, declared);
    },
  };
}

function prepareResponse(tracker: ProviderCallTracker): PrepareRequest {
  return async (body, client) => {
    const declared = arrayOf(body.tools).flatMap(responsesTool);
    const results = arrayOf(body.input).flatMap(functionCallOutput);
    const descriptions = await tracker.prepareRequest(declared, results);
    const tools = arrayOf(body.tools).map((tool) => {
      const served = descriptions.get(String(objectOf(tool).name));
      return served === undefined || objectOf(tool).type !== 'function' ? tool : { ...objectOf(tool), description: served };
    });
    const sent = descriptions.size > 0 ? { ...body, tools } : body;
    if (body.stream === true) {
      return { body: sent, onData: (stream) => observeStream(stream, client, responseStreamObserver(tracker, declared, body.model)) };
    }
    return {
      body: sent,
      onData: (response) => {
        const answer = objectOf(response);
        tracker.recordCalls(arrayOf(answer.output).flatMap(functionCall), stringOr(answer.model, body.model), declared);
        return response;
      },
    };
  };
}

function responsesTool(tool: unknown): DeclaredTool[] {
  const { type, name, description, parameters } = objectOf(tool);
  if (type !== 'function' || typeof name !== 'string') return [];
  return [{ name, description: typeof description === 'string' ? description : '', parameters: objectOf(parameters) }];
}

function functionCallOutput(item: unknown): ReturnedResult[] {
  const { type, call_id: callId, output } = objectOf(item);
  if (type !== 'function_call_output' || typeof callId !== 'string') return [];
  return [{ callId, output: textOf(output), isError: undefined }];
}

function functionCall(item: unknown): ModelToolCall[] {
  const { type, call_id: callId, name, arguments: args } = objectOf(item);
  if (type !== 'function_call' || typeof name !== 'string') return [];
  return [{ id: typeof callId === 'string' ? callId : '', name, arguments: args }];
}

/** Whole calls arrive in `response.output_item.done`; `response.completed` repeats them with the model. */
function responseStreamObserver(tracker: ProviderCallTracker, declared: DeclaredTool[], requestedModel: unknown) {
  const calls = new Map<string, ModelToolCall>();
  let model = stringOr(undefined, requestedModel);
  const add = (item: unknown) => {
    for (const call of functionCall(item)) calls.set(call.id || `#${calls.size}`, call);
  };
  return {
    onEvent(event: unknown) {
      const { type, item, response } = objectOf(event);
      const responseModel = objectOf(response).model;
      if (typeof responseModel === 'string' && responseModel) model = responseModel;
      if (type === 'response.output_item.done') add(item);
      if (type === 'response.completed') arrayOf(objectOf(response).output).forEach(add);
    },
    onEnd() {
      tracker.recordCalls([...calls.values()], model, declared);
    },
  };
}
