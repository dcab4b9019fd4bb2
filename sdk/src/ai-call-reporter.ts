// Turns every tool call of an AI SDK run into one toolcoach event. The hooks, in the order the AI SDK (ai 6.0.326,
// dist/index.js) calls them for one call:
//   experimental_repairToolCall   only for NoSuchToolError / InvalidToolInputError; the guard corrects or refuses here
//   integration.onToolCallStart   awaited before `execute`: from here on the integration owns the call's report
//   execute (wrapped)             the guard for calls the schema accepts; reports the call itself if nobody owns it
//   integration.onToolCallFinish  the duration
//   integration.onStepFinish      the step's content: tool-result and tool-error parts, and the invalid tool-call parts
//                                 (unknown tool, schema-invalid input, malformed JSON) that no tool ever saw; with the
//                                 step's model and its response messages (what the model is told of each result)
// A call is reported once: by onStepFinish when an integration saw it start or it never ran, else by `execute`; a step
// given to the reporter twice (the integration passed twice, or registered globally too) is reported the first time.
import type { TelemetryIntegration, ToolCallRepairFunction, ToolSet } from 'ai';
import { remember } from './bounded-memory';
import { contentText, errorOf, failureOf, MAX_NAME_CHARS, parseArguments, sessionOf } from './event-fields';
import { Toolcoach } from './toolcoach';
import { ToolEvent, ToolEventError } from '@toolcoach/core';

export interface AiReportOptions {
  /** The agent's name on every event; by default the client's `agent`. */
  agent?: string;
  /** The model on every event; by default the model of the step that made the call. */
  model?: string;
  /**
   * The session on every event. By default the client's session (`toolcoach.forSession(id)`), else a `sessionId`
   * (or `session_id`, `thread_id`) in `experimental_telemetry.metadata`, else the run (its first tool call's id).
   */
  sessionId?: string;
  /** Flags results that report a failure without throwing, such as `{success: false, error}`. */
  isFailure?: (result: unknown) => boolean;
}

const FRAMEWORK = 'ai-sdk';

/** What the guard's refusal throws: the AI SDK tells the model its message (a tool-error, or a failed repair). */
class GuardRefusal extends Error {
  override readonly name = 'GuardRefused';
}

/** A call an integration saw start, until its step reports it. */
interface Execution {
  occurredAt: number;
  durationMs?: number;
  /** The version of the tool's description when it was called: a refresh may bring the next before the step ends. */
  descriptionVersion: number | undefined;
}

/** What every event of one step carries. */
interface StepContext {
  model: string | undefined;
  metadata: Record<string, unknown> | undefined;
  functionId: string | undefined;
  /** The run: the id of its first tool call, which every later step's response messages still begin with. */
  traceId: string | undefined;
}

/** The parts of a step's content this reporter reads (ai's ContentPart, loosely: its tool types are generic). */
interface ContentPartLike {
  type: string;
  toolCallId: string;
  toolName: string;
  input?: unknown;
  output?: unknown;
  error?: unknown;
  invalid?: boolean;
  providerExecuted?: boolean;
}

interface StepLike {
  model: { modelId: string };
  metadata: Record<string, unknown> | undefined;
  functionId: string | undefined;
  content: unknown[];
  response: { messages: unknown[] };
}

interface MessageLike {
  role: string;
  content: unknown;
}

export class AiCallReporter {
  /** Calls an integration saw start; onStepFinish reports them. */
  private readonly executions = new Map<string, Execution>();
  /** Steps already reported. Not call ids: some providers number their calls anew in each response. */
  private readonly reportedSteps = new WeakSet<object>();

  constructor(
    private readonly client: Toolcoach,
    private readonly options: AiReportOptions,
  ) {}

  integration(): TelemetryIntegration {
    return {
      onToolCallStart: ({ toolCall }) => {
        remember(this.executions, toolCall.toolCallId, {
          occurredAt: Date.now(),
          descriptionVersion: this.client.descriptionVersionOf(toolCall.toolName),
        });
      },
      onToolCallFinish: ({ toolCall, durationMs }) => {
        const execution = this.executions.get(toolCall.toolCallId);
        if (execution) execution.durationMs = durationMs;
      },
      onStepFinish: (step) => this.reportStep(step as unknown as StepLike),
    };
  }

  /**
   * The guard on a call whose arguments failed the tool's schema: a safe correction is the repaired call, a refusal
   * fails the repair with the guard's message (what the model is told). Anything else is not the guard's to repair.
   */
  async repair({ toolCall, error }: Parameters<ToolCallRepairFunction<ToolSet>>[0]): ReturnType<ToolCallRepairFunction<ToolSet>> {
    if ((error as { name?: unknown }).name !== 'AI_InvalidToolInputError') return null;
    const args = parseArguments(toolCall.input);
    // malformed JSON: there are no arguments to correct
    if (args === null || typeof args !== 'object') return null;
    const verdict = this.client.checkArguments(toolCall.toolName, args);
    if (verdict.action === 'run') return null;
    if (verdict.action === 'refuse') {
      this.client.noteGuardOutcome(toolCall.toolCallId, { prevented: true });
      throw new GuardRefusal(verdict.message);
    }
    this.client.noteGuardOutcome(toolCall.toolCallId, { correction: verdict.correction });
    return { ...toolCall, input: JSON.stringify(verdict.correction.corrected) };
  }

  /**
   * Runs a tool's `execute` behind the guard. A call no integration saw start (the agent passed only the tools) is
   * reported here, when it ends; a refused one at once.
   */
  runGuarded(tool: string, input: unknown, toolCallId: string, execute: (args: unknown) => unknown): unknown {
    const verdict = this.client.checkArguments(tool, input);
    const isOwned = this.executions.has(toolCallId);
    if (verdict.action === 'refuse') {
      this.client.noteGuardOutcome(toolCallId, { prevented: true });
      if (!isOwned) this.reportAlone(tool, input, toolCallId, { error: new GuardRefusal(verdict.message) }, undefined);
      throw new GuardRefusal(verdict.message);
    }
    if (verdict.action === 'correct') this.client.noteGuardOutcome(toolCallId, { correction: verdict.correction });
    const args = verdict.action === 'correct' ? verdict.correction.corrected : input;
    if (isOwned) return execute(args);
    const startedAtMs = performance.now();
    const ended = (outcome: { output?: unknown; error?: unknown }) =>
      this.reportAlone(tool, args, toolCallId, outcome, performance.now() - startedAtMs);
    let result: unknown;
    try {
      result = execute(args);
    } catch (error) {
      ended({ error });
      throw error;
    }
    // a streaming tool (an async iterable of preliminary results) is reported by an integration only
    if (isAsyncIterable(result)) return result;
    if (!isThenable(result)) {
      ended({ output: result });
      return result;
    }
    return Promise.resolve(result).then(
      (output) => {
        ended({ output });
        return output;
      },
      (error: unknown) => {
        ended({ error });
        throw error;
      },
    );
  }

  private reportStep(step: StepLike): void {
    try {
      if (this.reportedSteps.has(step)) return;
      this.reportedSteps.add(step);
      const messages = (step.response?.messages ?? []) as MessageLike[];
      const context: StepContext = {
        model: step.model?.modelId?.slice(0, MAX_NAME_CHARS),
        metadata: step.metadata,
        functionId: step.functionId,
        traceId: firstToolCallIdOf(messages),
      };
      const toldModel = modelOutputsOf(messages);
      const parts = (step.content as ContentPartLike[]).filter((part) => !part.providerExecuted);
      const unreached = parts.filter((part) => part.type === 'tool-call' && part.invalid);
      for (const part of unreached) this.reportUnreached(part, context);
      const unreachedIds = new Set(unreached.map((part) => part.toolCallId));
      for (const part of parts) {
        if ((part.type !== 'tool-result' && part.type !== 'tool-error') || unreachedIds.has(part.toolCallId)) continue;
        this.reportExecuted(part, toldModel.get(part.toolCallId), context);
      }
    } catch {
      // Never break the agent.
    }
  }

  /** A call no tool saw: an unknown tool, input that failed the schema or was no JSON, a repair that failed. */
  private reportUnreached(part: ContentPartLike, context: StepContext): void {
    const isPrevented = this.client.takeGuardOutcome(part.toolCallId)?.prevented === true;
    const cause = (part.error as { cause?: unknown } | undefined)?.cause;
    const error = isPrevented ? { type: 'GuardRefused', message: errorOf(cause).message } : withoutStack(errorOf(part.error));
    const event: ToolEvent = { tool: part.toolName, status: 'error', error, occurredAt: new Date().toISOString() };
    if (part.input !== undefined) event.arguments = typeof part.input === 'string' ? parseArguments(part.input) : part.input;
    if (isPrevented) event.prevented = true;
    this.send(event, part.toolCallId, context);
  }

  private reportExecuted(part: ContentPartLike, toldModel: { type: string; value?: unknown } | undefined, context: StepContext): void {
    const execution = this.executions.get(part.toolCallId);
    this.executions.delete(part.toolCallId);
    const event = this.executedEvent(
      part.toolName,
      part.input,
      part.toolCallId,
      part.type === 'tool-error' ? { error: part.error } : { output: part.output },
    );
    // a tool's toModelOutput may tell the model a result is an error: a handled failure
    if (event.status === 'success' && (toldModel?.type === 'error-text' || toldModel?.type === 'error-json')) {
      event.status = 'error';
      event.error =
        toldModel.type === 'error-text' ? { type: 'ReportedFailure', message: contentText(toldModel.value) } : failureOf(toldModel.value);
    }
    event.occurredAt = new Date(execution?.occurredAt ?? Date.now()).toISOString();
    if (execution?.durationMs !== undefined) event.durationMs = execution.durationMs;
    if (execution?.descriptionVersion !== undefined) event.descriptionVersion = execution.descriptionVersion;
    this.send(event, part.toolCallId, context);
  }

  /** A call that reached `execute` with no integration to report it: no model, no step. */
  private reportAlone(
    tool: string,
    args: unknown,
    toolCallId: string,
    outcome: { output?: unknown; error?: unknown },
    durationMs: number | undefined,
  ): void {
    try {
      const event = this.executedEvent(tool, args, toolCallId, outcome);
      if (durationMs !== undefined) event.durationMs = durationMs;
      this.send(event, toolCallId, { model: undefined, metadata: undefined, functionId: undefined, traceId: undefined });
    } catch {
      // Never break the agent.
    }
  }

  /** The event of a call that ran (or that the guard refused in `execute`): its outcome and the guard's part in it. */
  private executedEvent(tool: string, input: unknown, toolCallId: string, outcome: { output?: unknown; error?: unknown }): ToolEvent {
    const guarded = this.client.takeGuardOutcome(toolCallId);
    const event: ToolEvent = { tool, status: 'success', arguments: guarded?.correction?.corrected ?? input };
    if ('error' in outcome) {
      event.status = 'error';
      event.error = guarded?.prevented ? { type: 'GuardRefused', message: errorOf(outcome.error).message } : errorOf(outcome.error);
      if (guarded?.prevented) event.prevented = true;
    } else {
      event.result = outcome.output;
      if (this.options.isFailure?.(outcome.output)) {
        event.status = 'error';
        event.error = failureOf(outcome.output);
      }
    }
    if (guarded?.correction) event.correction = guarded.correction;
    return event;
  }

  /** Adds what every event carries, and reports it. */
  private send(event: ToolEvent, toolCallId: string, context: StepContext): void {
    event.framework = FRAMEWORK;
    event.toolCallId = toolCallId;
    if (this.options.agent !== undefined) event.agent = this.options.agent;
    const model = this.options.model ?? context.model;
    if (model !== undefined) event.model = model;
    if (context.traceId !== undefined) event.traceId = context.traceId;
    const sessionId = this.options.sessionId ?? this.client.session ?? sessionOf(context.metadata) ?? context.traceId;
    if (sessionId !== undefined) event.sessionId = sessionId;
    if (context.functionId !== undefined || (context.metadata && Object.keys(context.metadata).length > 0)) {
      event.metadata = { ...context.metadata, ...(context.functionId !== undefined ? { functionId: context.functionId } : {}) };
    }
    this.client.report(event);
  }
}

/** The first tool call of a run: the response messages of each step begin with the run's first assistant message. */
function firstToolCallIdOf(messages: MessageLike[]): string | undefined {
  for (const message of messages) {
    if (message.role !== 'assistant' || !Array.isArray(message.content)) continue;
    for (const part of message.content as Array<{ type?: string; toolCallId?: string }>) {
      if (part.type === 'tool-call' && part.toolCallId) return part.toolCallId.slice(0, MAX_NAME_CHARS);
    }
  }
  return undefined;
}

/** What the model is told of each result (`output` of the tool messages' parts: text, json, error-text, error-json). */
function modelOutputsOf(messages: MessageLike[]): Map<string, { type: string; value?: unknown }> {
  const outputs = new Map<string, { type: string; value?: unknown }>();
  for (const message of messages) {
    if (message.role !== 'tool' || !Array.isArray(message.content)) continue;
    for (const part of message.content as Array<{ type?: string; toolCallId?: string; output?: { type: string; value?: unknown } }>) {
      if (part.type === 'tool-result' && part.toolCallId && part.output) outputs.set(part.toolCallId, part.output);
    }
  }
  return outputs;
}

/** The AI SDK's own stack of a parse failure points into node_modules: it would only split identical failures apart. */
function withoutStack({ type, message }: ToolEventError): ToolEventError {
  return { type, message };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return value !== null && typeof value === 'object' && Symbol.asyncIterator in value;
}
