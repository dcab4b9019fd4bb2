// The LangChain.js entry point (@toolcoach/sdk/langchain). It imports only types of @langchain/core, so the package
// keeps no runtime dependency: LangChain accepts any object with a `name` and handler methods as a callback handler.
import type { CallbackHandlerMethods } from '@langchain/core/callbacks/base';
import type { Serialized } from '@langchain/core/load/serializable';
import type { LLMResult } from '@langchain/core/outputs';
import type { ChainValues } from '@langchain/core/utils/types';
import { remember, rememberId } from './bounded-memory';
import { Toolcoach } from './toolcoach';
import { contentText, errorOf, failureOf, MAX_NAME_CHARS, parseArguments, sessionOf } from './event-fields';
import { ToolEvent, ToolEventError } from '@toolcoach/core';

export interface ToolcoachCallbackOptions {
  /** The agent's name on every event; by default `metadata.agent`, an `agent:<name>` tag, or the client's `agent`. */
  agent?: string;
  /**
   * The model on every event. By default the model LangChain's chat model names for the call that asked for the tool
   * (`ls_model_name` in its run metadata, else `model` in its invocation params).
   */
  model?: string;
  /**
   * The session on every event. By default the client's session (`toolcoach.forSession(id)`, or the `session` option),
   * else LangGraph's `thread_id` (or a `session_id`/`sessionId` key) in the run's metadata, else the agent run (the
   * trace): the server relates a session's calls, e.g. what it called after a wrong tool name.
   */
  sessionId?: string;
  /** Flags results that report a failure without throwing, such as `{success: false, error}`. */
  isFailure?: (result: unknown) => boolean;
}

const FRAMEWORK = 'langchainjs';
const STACK_LINE = /\n\s+at .*/g;
// Metadata keys LangChain and LangGraph add for their own bookkeeping; the rest is the user's.
const INTERNAL_METADATA = /^(langgraph_|ls_|lc_|__|checkpoint_ns$|versions$)/;
// Parent links are followed this far up at most: a trace is a few levels deep, a cycle would be a bug upstream.
const MAX_TRACE_DEPTH = 64;

interface ToolRun {
  runId: string;
  tool: string;
  input: string;
  startedAtMs: number;
  occurredAt: number;
  toolCallId: string | undefined;
  parentRunId: string | undefined;
  tags: string[] | undefined;
  metadata: Record<string, unknown> | undefined;
  /** The version of the tool's description when it was called: a refresh may bring the next before the call ends. */
  descriptionVersion: number | undefined;
}

interface ModelToolCall {
  name: string;
  args: unknown;
  /** The model that asked for the call, when its run named one. */
  model: string | undefined;
}

/** A chain or model run still going on: where it sits in its trace, and what it was started with. */
interface OpenRun {
  parentRunId: string | undefined;
  tags: string[] | undefined;
  metadata: Record<string, unknown> | undefined;
  /** Set on model runs: the model the run named, if any. */
  model?: string;
}

/** Where an event's run sits and what it carried, for the fields every event gets. */
interface RunContext {
  runId: string | undefined;
  parentRunId: string | undefined;
  tags: string[] | undefined;
  metadata: Record<string, unknown> | undefined;
  model: string | undefined;
}

interface ToolMessageLike {
  content: unknown;
  status?: string;
  tool_call_id?: string;
  name?: string;
}

/**
 * Turns every LangChain tool run into one toolcoach event, including the failures LangChain handles before or
 * around the tool: schema mismatches (ToolInputParsingException), unknown tool names, and ToolMessages whose status
 * is "error". Pass it in `callbacks` of the agent's invoke/stream config; for one conversation of many, give it that
 * conversation's view, `new ToolcoachCallbackHandler(toolcoach.forSession(id))`, and its events carry the session.
 */
export class ToolcoachCallbackHandler implements CallbackHandlerMethods {
  readonly name = 'toolcoach';
  private readonly runs = new Map<string, ToolRun>();
  /** Tool calls the model made, by id, to attach arguments and the model to the events of those calls. */
  private readonly modelToolCalls = new Map<string, ModelToolCall>();
  /** Chain and model runs that have not ended: parent links to find a run's trace, metadata of tool nodes and models. */
  private readonly openRuns = new Map<string, OpenRun>();
  /** The last model named in each trace (by root run id), for tool runs no model tool call can be matched to. */
  private readonly lastModelOfTrace = new Map<string, string>();
  /** Tool call ids that reached a tool, whose outcome the tool callbacks already reported. */
  private readonly ranToolCallIds = new Set<string>();

  constructor(
    private readonly client: Toolcoach,
    private readonly options: ToolcoachCallbackOptions = {},
  ) {}

  handleToolStart(
    _tool: Serialized,
    input: string,
    runId: string,
    parentRunId?: string,
    tags?: string[],
    metadata?: Record<string, unknown>,
    runName?: string,
    toolCallId?: string,
  ): void {
    try {
      // The serialized tool carries no name in LangChain.js 1.x; the run name defaults to the tool's name.
      const tool = runName ?? (_tool as { name?: string })?.name ?? 'unknown';
      remember(this.runs, runId, {
        runId,
        tool,
        input,
        startedAtMs: performance.now(),
        occurredAt: Date.now(),
        toolCallId,
        parentRunId,
        tags,
        metadata,
        descriptionVersion: this.client.descriptionVersionOf(tool),
      });
      if (toolCallId !== undefined) rememberId(this.ranToolCallIds, toolCallId);
    } catch {
      // Never break the agent.
    }
  }

  handleToolEnd(output: unknown, runId: string): void {
    try {
      const run = this.runs.get(runId);
      if (!run) return;
      this.runs.delete(runId);
      const message = asToolMessage(output);
      const result = message ? message.content : output;
      if (message?.status === 'error') {
        return this.reportRun(run, 'error', result, { type: 'ToolMessageError', message: contentText(message.content) });
      }
      if (this.options.isFailure?.(result)) return this.reportRun(run, 'error', result, failureOf(result));
      this.reportRun(run, 'success', result, undefined);
    } catch {
      // Never break the agent.
    }
  }

  handleToolError(error: unknown, runId: string): void {
    try {
      const run = this.runs.get(runId);
      if (!run) return;
      this.runs.delete(runId);
      this.reportRun(run, 'error', undefined, errorOf(error));
    } catch {
      // Never break the agent.
    }
  }

  handleChatModelStart(
    _llm: Serialized,
    _messages: unknown[][],
    runId: string,
    parentRunId?: string,
    extraParams?: Record<string, unknown>,
    tags?: string[],
    metadata?: Record<string, unknown>,
  ): void {
    this.startModelRun(runId, parentRunId, extraParams, tags, metadata);
  }

  /** Plain (non-chat) models; LangChain calls this one for chat models only when a handler has no handleChatModelStart. */
  handleLLMStart(
    _llm: Serialized,
    _prompts: string[],
    runId: string,
    parentRunId?: string,
    extraParams?: Record<string, unknown>,
    tags?: string[],
    metadata?: Record<string, unknown>,
  ): void {
    this.startModelRun(runId, parentRunId, extraParams, tags, metadata);
  }

  /** Remembers the tool calls the model asked for, and reports the malformed ones LangChain could not parse. */
  handleLLMEnd(output: LLMResult, runId: string, parentRunId?: string, tags?: string[]): void {
    try {
      const run = this.openRuns.get(runId);
      const context: RunContext = {
        runId,
        parentRunId: run?.parentRunId ?? parentRunId,
        tags: run?.tags ?? tags,
        metadata: run?.metadata,
        model: run?.model,
      };
      for (const generations of output.generations ?? []) {
        for (const generation of generations) {
          const message = (
            generation as {
              message?: {
                tool_calls?: Array<{ id?: string; name: string; args: unknown }>;
                invalid_tool_calls?: Array<{ id?: string; name?: string; args?: string; error?: string }>;
              };
            }
          ).message;
          for (const call of message?.tool_calls ?? []) {
            if (call.id) remember(this.modelToolCalls, call.id, { name: call.name, args: call.args, model: context.model });
          }
          for (const call of message?.invalid_tool_calls ?? []) {
            if (call.id) rememberId(this.ranToolCallIds, call.id);
            this.reportUnreached(
              {
                tool: call.name || 'unknown',
                toolCallId: call.id,
                args: call.args,
                error: { type: 'InvalidToolCall', message: call.error ?? `the model's arguments for ${call.name} are not valid JSON` },
              },
              context,
            );
          }
        }
      }
    } catch {
      // Never break the agent.
    }
    this.endRun(runId, parentRunId);
  }

  handleLLMError(_error: unknown, runId: string, parentRunId?: string): void {
    this.endRun(runId, parentRunId);
  }

  handleChainStart(
    _chain: Serialized,
    _inputs: ChainValues,
    runId: string,
    parentRunId?: string,
    tags?: string[],
    metadata?: Record<string, unknown>,
  ): void {
    try {
      remember(this.openRuns, runId, { parentRunId, tags, metadata });
    } catch {
      // Never break the agent.
    }
  }

  /**
   * A tool node's output: error ToolMessages for calls that never reached a tool (an unknown tool name, arguments
   * that failed the tool's schema) become events here, since LangChain runs no tool callback for them.
   */
  handleChainEnd(outputs: ChainValues, runId: string, parentRunId?: string, tags?: string[]): void {
    try {
      const node = this.openRuns.get(runId);
      const messages = (outputs as { messages?: unknown } | undefined)?.messages;
      if (Array.isArray(messages)) this.reportToolNodeFailures(messages, runId, node, parentRunId, tags);
    } catch {
      // Never break the agent.
    }
    this.endRun(runId, parentRunId);
  }

  handleChainError(_error: unknown, runId: string, parentRunId?: string): void {
    this.endRun(runId, parentRunId);
  }

  private reportToolNodeFailures(
    messages: unknown[],
    runId: string,
    node: OpenRun | undefined,
    parentRunId: string | undefined,
    tags: string[] | undefined,
  ): void {
    for (const item of messages) {
      const message = asToolMessage(item);
      if (!message || message.status !== 'error' || !message.tool_call_id || this.ranToolCallIds.has(message.tool_call_id)) continue;
      rememberId(this.ranToolCallIds, message.tool_call_id);
      const call = this.modelToolCalls.get(message.tool_call_id);
      // the guard refused this call before the tool ran: the mistake, flagged as prevented
      const isPrevented = this.client.takeGuardOutcome(message.tool_call_id)?.prevented === true;
      this.reportUnreached(
        {
          tool: message.name ?? call?.name ?? 'unknown',
          toolCallId: message.tool_call_id,
          args: call?.args,
          error: isPrevented
            ? { type: 'GuardRefused', message: contentText(message.content) }
            : unreachedErrorOf(contentText(message.content)),
          isPrevented,
        },
        { runId, parentRunId: node?.parentRunId ?? parentRunId, tags: node?.tags ?? tags, metadata: node?.metadata, model: call?.model },
      );
    }
  }

  private startModelRun(
    runId: string,
    parentRunId: string | undefined,
    extraParams: Record<string, unknown> | undefined,
    tags: string[] | undefined,
    metadata: Record<string, unknown> | undefined,
  ): void {
    try {
      const model = modelNameOf(metadata, extraParams);
      remember(this.openRuns, runId, { parentRunId, tags, metadata, model });
      if (model !== undefined) remember(this.lastModelOfTrace, this.rootOf(runId), model);
    } catch {
      // Never break the agent.
    }
  }

  private endRun(runId: string, parentRunId: string | undefined): void {
    this.openRuns.delete(runId);
    // the root run ended: its trace is over
    if (parentRunId === undefined) this.lastModelOfTrace.delete(runId);
  }

  /** The id of the outermost run still known above this one: the trace's root (LangSmith's trace id). */
  private rootOf(runId: string): string {
    let current = runId;
    for (let depth = 0; depth < MAX_TRACE_DEPTH; depth++) {
      const parent = this.openRuns.get(current)?.parentRunId;
      if (parent === undefined) break;
      current = parent;
    }
    return current;
  }

  private reportRun(run: ToolRun, status: 'success' | 'error', result: unknown, error: ToolEventError | undefined): void {
    const event: ToolEvent = {
      tool: run.tool,
      status,
      arguments: parseArguments(run.input),
      durationMs: performance.now() - run.startedAtMs,
      occurredAt: new Date(run.occurredAt).toISOString(),
    };
    if (result !== undefined) event.result = result;
    if (error) event.error = error;
    if (run.descriptionVersion !== undefined) event.descriptionVersion = run.descriptionVersion;
    const correction = run.toolCallId === undefined ? undefined : this.client.takeGuardOutcome(run.toolCallId)?.correction;
    if (correction) event.correction = correction;
    const call = run.toolCallId === undefined ? undefined : this.modelToolCalls.get(run.toolCallId);
    this.send(event, run.toolCallId, {
      runId: run.runId,
      parentRunId: run.parentRunId,
      tags: run.tags,
      metadata: run.metadata,
      model: call?.model,
    });
  }

  /** A call that never ran a tool: no duration, since nothing ran. */
  private reportUnreached(
    failure: { tool: string; toolCallId?: string; args: unknown; error: ToolEventError; isPrevented?: boolean },
    context: RunContext,
  ): void {
    const event: ToolEvent = { tool: failure.tool, status: 'error', error: failure.error };
    if (failure.isPrevented) event.prevented = true;
    if (failure.args !== undefined) event.arguments = typeof failure.args === 'string' ? parseArguments(failure.args) : failure.args;
    this.send(event, failure.toolCallId, context);
  }

  /** Adds what every event carries: framework, run ids and trace, agent, model, session, tool call id, user metadata. */
  private send(event: ToolEvent, toolCallId: string | undefined, context: RunContext): void {
    event.framework = FRAMEWORK;
    if (context.runId !== undefined) {
      event.runId = context.runId;
      event.traceId = context.parentRunId === undefined ? context.runId : this.rootOf(context.parentRunId);
    }
    if (toolCallId) event.toolCallId = toolCallId;
    const agent = this.agentOf(context.tags, context.metadata);
    if (agent !== undefined) event.agent = agent;
    const model =
      this.options.model ?? context.model ?? (event.traceId === undefined ? undefined : this.lastModelOfTrace.get(event.traceId));
    if (model !== undefined) event.model = model;
    const sessionId = this.options.sessionId ?? this.client.session ?? sessionOf(context.metadata) ?? event.traceId;
    if (sessionId !== undefined) event.sessionId = sessionId;
    const metadata = userMetadata(context.metadata, context.tags, context.parentRunId);
    if (metadata) event.metadata = metadata;
    this.client.report(event);
  }

  private agentOf(tags: string[] | undefined, metadata: Record<string, unknown> | undefined): string | undefined {
    if (this.options.agent !== undefined) return this.options.agent;
    const fromMetadata = metadata?.agent ?? metadata?.lc_agent_name;
    if (typeof fromMetadata === 'string' && fromMetadata) return fromMetadata;
    const tag = tags?.find((t) => t.startsWith('agent:'));
    if (tag) return tag.slice('agent:'.length);
    return this.client.agent;
  }
}

/** The model a chat model run names: LangSmith's `ls_model_name`, else the provider's own invocation parameter. */
function modelNameOf(metadata: Record<string, unknown> | undefined, extraParams: Record<string, unknown> | undefined): string | undefined {
  const params = extraParams?.invocation_params as Record<string, unknown> | undefined;
  for (const candidate of [metadata?.ls_model_name, params?.model, params?.model_name, params?.modelName]) {
    if (typeof candidate === 'string' && candidate) return candidate.slice(0, MAX_NAME_CHARS);
  }
  return undefined;
}

function asToolMessage(value: unknown): ToolMessageLike | undefined {
  if (value === null || typeof value !== 'object' || !('tool_call_id' in value) || !('content' in value)) return undefined;
  return value as ToolMessageLike;
}

/** Names the failure of a call that never reached a tool, from the message LangChain gave the model. */
function unreachedErrorOf(content: string): ToolEventError {
  // The stack LangChain embeds points into node_modules of this machine; it would only split identical failures apart.
  const message = content.replace(STACK_LINE, '');
  if (/ is not a valid tool, try one of \[/.test(message)) return { type: 'ToolNotFoundError', message };
  if (/did not match expected schema/.test(message)) return { type: 'ToolInputParsingException', message };
  return { type: 'ToolMessageError', message };
}

function userMetadata(
  metadata: Record<string, unknown> | undefined,
  tags: string[] | undefined,
  parentRunId: string | undefined,
): Record<string, unknown> | undefined {
  let result: Record<string, unknown> | undefined;
  if (metadata) {
    for (const key in metadata) {
      if (INTERNAL_METADATA.test(key) || key === 'agent') continue;
      (result ??= {})[key] = metadata[key];
    }
  }
  if (tags && tags.length > 0) (result ??= {}).tags = tags;
  if (parentRunId) (result ??= {}).parentRunId = parentRunId;
  return result;
}
