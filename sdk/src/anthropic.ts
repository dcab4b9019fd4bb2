// @toolcoach/sdk/anthropic: the `@anthropic-ai/sdk` client's tool calls, streaming or not
// (docs/integrations/openai-anthropic.md). Shapes (anthropic-sdk-typescript, src/resources/messages/messages.ts): a call
// is a content block `{type: "tool_use", id, name, input}` with `input` an object; its result comes back in a user
// message as `{type: "tool_result", tool_use_id, content?, is_error?}`. Streamed, a call opens with
// `content_block_start` (`content_block: {type: "tool_use", id, name, input: {}}`) and its input arrives as
// `content_block_delta` events `{index, delta: {type: "input_json_delta", partial_json}}`.
import { arrayOf, objectOf, stringOr, textOf } from './loose-json';
import { DeclaredTool, ModelToolCall, ProviderCallTracker, ProviderWrapperOptions, ReturnedResult } from './provider-calls';
import { observeStream, PrepareRequest, wrapClient } from './provider-client';
import type { Toolcoach } from './toolcoach';

export type { ProviderWrapperOptions } from './provider-calls';

const FRAMEWORK = 'anthropic-node';

/**
 * Reports the tool calls an `@anthropic-ai/sdk` client's `messages.create` makes (and the `stream` and `parse` helpers
 * built on it), each once with its outcome, and sends each request's tools with their live descriptions. Answers a
 * wrapped client; `client` is not changed.
 */
export function wrapAnthropic<C extends object>(client: C, toolcoach: Toolcoach, options: ProviderWrapperOptions = {}): C {
  const tracker = new ProviderCallTracker(toolcoach, FRAMEWORK, options);
  return wrapClient(client, { 'messages.create': prepareMessage(tracker) });
}

function prepareMessage(tracker: ProviderCallTracker): PrepareRequest {
  return async (body, client) => {
    const declared = arrayOf(body.tools).flatMap(declaredTool);
    const results = arrayOf(body.messages).flatMap((message) => arrayOf(objectOf(message).content).flatMap(toolResult));
    const descriptions = await tracker.prepareRequest(declared, results);
    const tools = arrayOf(body.tools).map((tool) => {
      const served = declaredTool(tool).length > 0 ? descriptions.get(String(objectOf(tool).name)) : undefined;
      return served === undefined ? tool : { ...objectOf(tool), description: served };
    });
    const sent = descriptions.size > 0 ? { ...body, tools } : body;
    if (body.stream === true) {
      return { body: sent, onData: (stream) => observeStream(stream, client, messageStreamObserver(tracker, declared, body.model)) };
    }
    return {
      body: sent,
      onData: (message) => {
        const answer = objectOf(message);
        tracker.recordCalls(arrayOf(answer.content).flatMap(toolUse), stringOr(answer.model, body.model), declared);
        return message;
      },
    };
  };
}

/** Client tools: Anthropic's server tools (web search, code execution, ...) carry a versioned `type` and no schema. */
function declaredTool(tool: unknown): DeclaredTool[] {
  const { type, name, description, input_schema: schema } = objectOf(tool);
  if (typeof name !== 'string' || (type !== undefined && type !== 'custom') || typeof schema !== 'object' || schema === null) return [];
  return [{ name, description: typeof description === 'string' ? description : '', parameters: objectOf(schema) }];
}

function toolResult(block: unknown): ReturnedResult[] {
  const { type, tool_use_id: callId, content, is_error: isError } = objectOf(block);
  if (type !== 'tool_result' || typeof callId !== 'string') return [];
  // an absent is_error means the call succeeded (the Messages API's own reading)
  return [{ callId, output: textOf(content), isError: isError === true }];
}

function toolUse(block: unknown): ModelToolCall[] {
  const { type, id, name, input } = objectOf(block);
  if (type !== 'tool_use' || typeof name !== 'string') return [];
  return [{ id: typeof id === 'string' ? id : '', name, arguments: input }];
}

/** A streamed call: named by its block's start, its input the concatenated `partial_json` (none: the start's input). */
function messageStreamObserver(tracker: ProviderCallTracker, declared: DeclaredTool[], requestedModel: unknown) {
  const calls = new Map<number, { call: ModelToolCall; json: string }>();
  let model = stringOr(undefined, requestedModel);
  return {
    onEvent(event: unknown) {
      const { type, index, message, content_block: block, delta } = objectOf(event);
      if (type === 'message_start') model = stringOr(objectOf(message).model, model);
      if (type === 'content_block_start' && typeof index === 'number') {
        for (const call of toolUse(block)) calls.set(index, { call, json: '' });
      }
      const { type: deltaType, partial_json: json } = objectOf(delta);
      const open = typeof index === 'number' ? calls.get(index) : undefined;
      if (type === 'content_block_delta' && open && deltaType === 'input_json_delta' && typeof json === 'string') open.json += json;
    },
    onEnd() {
      const complete = [...calls.values()].map(({ call, json }) => (json === '' ? call : { ...call, arguments: json }));
      tracker.recordCalls(complete, model, declared);
    },
  };
}
