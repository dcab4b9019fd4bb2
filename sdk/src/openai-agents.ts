// The OpenAI Agents SDK entry point (@toolcoach/sdk/openai-agents). Every function tool call is reported once, from
// the first place that knows how it ended:
// - calls that never reach a tool (a name that is no tool's: the SDK's ModelBehaviorError; arguments that are not
//   JSON) when the model's response is seen (`modelProvider`/`model`), since the runner runs no hook for them;
// - every other call at the runner's `agent_tool_end` hook (`instrument`), inside the call's function span, whose
//   error says whether the SDK turned a failure into the text the model reads. What a tool threw is seen only by the
//   tool's own `execute`, which `tool` wraps: the SDK's default error function hides it from hooks and traces.
// The arguments of a call come from the model's response: the runner redacts those that fail a tool's schema.
import {
  type Agent,
  type FunctionTool,
  type Model,
  type ModelProvider,
  type RunContext,
  type Runner,
  type Tool,
  type ToolGuardrailFunctionOutput,
  defineToolInputGuardrail,
  getCurrentSpan,
  getCurrentTrace,
  getDefaultModel,
  tool,
  ToolGuardrailFunctionOutputFactory,
} from '@openai/agents';
import { remember, rememberId } from './bounded-memory';
import { type ModelFunctionCall, type ModelTurn, ObservedModel } from './openai-agents-model';
import { errorOf, MAX_NAME_CHARS, parseArguments } from './event-fields';
import type { LoadToolsOptions, Toolcoach } from './toolcoach';
import { Correction, ToolEvent, ToolEventError } from '@toolcoach/core';

export interface ToolcoachAgentsOptions {
  /** The agent on every event. By default the name of the Agents SDK agent that made the call, else the client's. */
  agent?: string;
  /** The model on every event. By default the name the model was asked for by (`Agent.model`, `RunConfig.model`). */
  model?: string;
  /**
   * The session on every event. By default the client's session (`toolcoach.forSession(id)`), else the trace's group
   * id (`RunConfig.groupId`), else the run's `conversationId`, else the trace id.
   */
  sessionId?: string;
  /** Flags tool outputs that report a failure in words rather than by throwing, such as `{"ok":false}`. */
  isFailure?: (output: string) => boolean;
}

const FRAMEWORK = 'openai-agents-js';
const GUARDRAIL_NAME = 'toolcoach-guard';
// The SDK's trace and span id when tracing is off (OPENAI_AGENTS_DISABLE_TRACING, or NODE_ENV=test): no run's id.
const NO_OP_ID = 'no-op';

/** What is known of one function call, from the model's response and the tool's run, until it is reported. */
interface CallRecord {
  tool: string;
  /** As the model sent them (parsed), or corrected by the guard; the JSON text when it is not JSON. */
  args: unknown;
  model: string | undefined;
  conversationId: string | undefined;
  /** The version of the tool's description the model was shown: a refresh may bring the next before the call ends. */
  descriptionVersion: number | undefined;
  correction?: Correction;
  /** The guard's words to the model, when it refused the call. */
  refusal?: string;
  startedAtMs?: number;
  occurredAt?: string;
  /** Set by a tool made with `tool`: its `execute` ran, and what it threw. */
  isExecuted?: boolean;
  thrown?: { error: unknown };
}

type AnyTool = Tool<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type AnyAgent = Agent<any, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type AnyFunctionTool = FunctionTool<any, any, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
interface ToolCallDetails {
  toolCall: { callId: string; name: string; arguments: string };
}

/**
 * Reports the function tool calls of OpenAI Agents SDK runs to toolcoach, loads the learned descriptions into the
 * tools, and guards their calls. See docs/integrations/openai-agents.md.
 */
export class ToolcoachAgents {
  /** Calls seen and not yet reported, by call id. */
  private readonly calls = new Map<string, CallRecord>();
  /** Calls reported, so that a runner and an agent both instrumented report a call once. */
  private readonly reported = new Set<string>();
  /** Tools made with `tool`: for them, a failed call whose `execute` never ran failed on its input. */
  private readonly watchedTools = new WeakSet<object>();
  private readonly guardedTools = new WeakSet<object>();
  private readonly instrumented = new WeakSet<object>();

  constructor(
    readonly client: Toolcoach,
    private readonly options: ToolcoachAgentsOptions = {},
  ) {}

  /**
   * The Agents SDK's `tool()`, with the same options and result, whose `execute` tells toolcoach what it threw: the
   * SDK's default error function gives the model (and every hook and trace) a fixed text instead.
   */
  readonly tool: typeof tool = ((options: Parameters<typeof tool>[0]) => {
    const execute = options.execute as (input: unknown, context?: RunContext, details?: ToolCallDetails) => unknown;
    const watched = tool({
      ...options,
      execute: async (input: unknown, context?: RunContext, details?: ToolCallDetails) => {
        const record = details?.toolCall ? this.recordOf(details.toolCall) : undefined;
        if (record) record.isExecuted = true;
        try {
          return await execute(input, context, details);
        } catch (error) {
          if (record) record.thrown = { error };
          throw error;
        }
      },
    } as Parameters<typeof tool>[0]);
    this.watchedTools.add(watched);
    return watched;
  }) as typeof tool;

  /**
   * Registers the function tools (name, description, JSON Schema) and gives each, in place, the description the server
   * serves, learned warnings included; the client's timer keeps it current (`refreshIntervalMs`). With `guard`, each
   * call is checked first: a safe correction is applied to the model's call (needs `modelProvider` or `model`), an
   * unsafe call is refused through the tool's input guardrails, the SDK's way for a tool to refuse. Never throws.
   */
  async loadTools<T extends AnyTool>(tools: T[], options: LoadToolsOptions = {}): Promise<T[]> {
    const functionTools = tools.filter((candidate) => candidate.type === 'function') as unknown as AnyFunctionTool[];
    await this.client.loadTools(functionTools, options);
    if (options.guard) for (const functionTool of functionTools) this.addGuardrail(functionTool);
    return tools;
  }

  /** A model provider whose models show toolcoach each response's function calls: `new Runner({ modelProvider })`. */
  modelProvider(inner: ModelProvider): ModelProvider {
    return { getModel: async (name?: string) => this.model(await inner.getModel(name), name || getDefaultModel()) };
  }

  /** A model that shows toolcoach each response's function calls, for an agent given a `Model` instead of a name. */
  model(inner: Model, modelName?: string): Model {
    return new ObservedModel(inner, modelName, (turn) => this.observeTurn(turn));
  }

  /**
   * Reports the tool calls of every run of a `Runner` (its run hooks), or of one `Agent` (its agent hooks). Calls that
   * never reach a tool are seen by `modelProvider`/`model` only. Returns the target; instrumenting it again is a no-op.
   */
  instrument<T extends Runner | AnyAgent>(target: T): T {
    if (this.instrumented.has(target)) return target;
    this.instrumented.add(target);
    // told apart by shape, not by class: an app may load another copy of @openai/agents than this package does
    if (isRunner(target)) {
      target.on('agent_tool_start', (_context, agent, _tool, details) => this.onToolStart(details, agent));
      target.on('agent_tool_end', (_context, agent, tool, output, details) => this.onToolEnd(details, output, agent, tool));
    } else {
      const agent: AnyAgent = target;
      agent.on('agent_tool_start', (_context, _tool, details) => this.onToolStart(details, agent));
      agent.on('agent_tool_end', (_context, tool, output, details) => this.onToolEnd(details, output, agent, tool));
    }
    return target;
  }

  /** A model's response: its calls are remembered, the guard's corrections applied, unreachable calls reported. */
  private observeTurn(turn: ModelTurn): void {
    const model = this.options.model ?? turn.modelName;
    for (const call of turn.calls) {
      if (this.reported.has(call.callId)) continue;
      const record: CallRecord = {
        tool: call.name,
        args: undefined,
        model,
        conversationId: turn.conversationId,
        descriptionVersion: this.client.descriptionVersionOf(call.name),
      };
      remember(this.calls, call.callId, record);
      let args: unknown;
      try {
        args = JSON.parse(call.arguments);
      } catch (error) {
        record.args = call.arguments;
        if (turn.callableNames?.has(call.name) === false) this.reportNotFound(call, record);
        else this.reportUnreached(call.callId, record, malformedArguments(call.name, error));
        continue;
      }
      record.args = args;
      if (turn.callableNames?.has(call.name) === false) {
        this.reportNotFound(call, record);
        continue;
      }
      this.correctCall(call, record);
    }
  }

  /** The guard's safe correction, made to the call the model sent, before the SDK parses it. */
  private correctCall(call: ModelFunctionCall, record: CallRecord): void {
    const verdict = this.client.checkArguments(call.name, record.args);
    if (verdict.action !== 'correct') return;
    record.correction = verdict.correction;
    record.args = verdict.correction.corrected;
    call.arguments = JSON.stringify(verdict.correction.corrected);
  }

  private addGuardrail(functionTool: AnyFunctionTool): void {
    if (this.guardedTools.has(functionTool)) return;
    this.guardedTools.add(functionTool);
    const guardrail = defineToolInputGuardrail({
      name: GUARDRAIL_NAME,
      run: async ({ toolCall }) => this.guardCall(toolCall),
    });
    functionTool.inputGuardrails = [...(functionTool.inputGuardrails ?? []), guardrail];
  }

  /**
   * Refuses an unsafe call before the tool runs. Arguments that fail a zod schema are redacted from the guardrail and
   * the SDK replaces a refusal's text of such a call with its own (unless sensitive data may be logged): the tool does
   * not run either way, and the call is reported as the guard's refusal.
   */
  private guardCall(toolCall: ToolCallDetails['toolCall']): ToolGuardrailFunctionOutput {
    try {
      const record = this.recordOf(toolCall);
      const verdict = this.client.checkArguments(toolCall.name, record.args);
      if (verdict.action !== 'refuse') return ToolGuardrailFunctionOutputFactory.allow();
      record.refusal = verdict.message;
      return ToolGuardrailFunctionOutputFactory.rejectContent(verdict.message);
    } catch {
      return ToolGuardrailFunctionOutputFactory.allow();
    }
  }

  private onToolStart(details: { toolCall: unknown }, agent: AnyAgent): void {
    try {
      // computer, shell and patch calls run these hooks too; only function calls are tool calls toolcoach coaches
      if (!isFunctionCallDetails(details) || this.reported.has(details.toolCall.callId)) return;
      const record = this.recordOf(details.toolCall, agent);
      record.startedAtMs ??= performance.now();
      record.occurredAt ??= new Date().toISOString();
    } catch {
      // Never break the agent.
    }
  }

  private onToolEnd(details: { toolCall: unknown }, output: string, agent: AnyAgent, tool: AnyTool): void {
    try {
      if (!isFunctionCallDetails(details) || this.reported.has(details.toolCall.callId)) return;
      const { callId } = details.toolCall;
      const record = this.recordOf(details.toolCall, agent);
      const span = currentSpan();
      const { error, isPrevented } = this.outcomeOf(tool, record, output, span?.error != null, span !== undefined);
      const event: ToolEvent = { tool: record.tool, status: error ? 'error' : 'success' };
      if (error) event.error = error;
      if (isPrevented) event.prevented = true;
      if (!error || error.type === 'ReportedFailure') event.result = output;
      if (record.startedAtMs !== undefined) event.durationMs = performance.now() - record.startedAtMs;
      if (record.occurredAt !== undefined) event.occurredAt = record.occurredAt;
      if (record.correction) event.correction = record.correction;
      if (span) event.runId = span.spanId;
      this.send(callId, record, event, agent.name);
    } catch {
      // Never break the agent.
    }
  }

  /**
   * How a call that reached the runner's hooks ended. The function span's error says the SDK turned a failure into the
   * text the model reads; for a tool made with `tool`, what its `execute` threw says which, and an `execute` that
   * never ran says the call failed before the tool: on its input (the span's error), or by an input guardrail.
   */
  private outcomeOf(
    tool: AnyTool,
    record: CallRecord,
    output: string,
    hasSpanError: boolean,
    hasSpan: boolean,
  ): { error?: ToolEventError; isPrevented?: boolean } {
    if (record.refusal !== undefined) return { error: { type: 'GuardRefused', message: record.refusal }, isPrevented: true };
    if (record.thrown) return { error: errorOf(record.thrown.error) };
    if (this.watchedTools.has(tool) && !record.isExecuted) {
      // without tracing there is no span to tell the two apart; an input failure is by far the likelier
      if (hasSpan && !hasSpanError) return { error: { type: 'ToolInputGuardrailRejection', message: output } };
      return { error: { type: 'InvalidToolInputError', message: `Invalid input for function tool '${record.tool}'.` } };
    }
    if (hasSpanError) return { error: { type: 'ToolError', message: output } };
    if (this.options.isFailure?.(output)) return { error: { type: 'ReportedFailure', message: output } };
    return {};
  }

  /** A call of a name that is no tool of the agent: the SDK raises ModelBehaviorError (or tells the model, if asked). */
  private reportNotFound(call: ModelFunctionCall, record: CallRecord): void {
    const agent = currentAgentName();
    const where = agent === undefined ? '' : ` in agent ${agent}`;
    this.reportUnreached(call.callId, record, { type: 'ModelBehaviorError', message: `Tool ${call.name} not found${where}.` });
  }

  /** A call that never ran a tool: no duration, since nothing ran. */
  private reportUnreached(callId: string, record: CallRecord, error: ToolEventError): void {
    this.send(callId, record, { tool: record.tool, status: 'error', error, occurredAt: new Date().toISOString() }, currentAgentName());
  }

  /** Adds what every event carries (framework, arguments, call id, agent, model, session, trace) and reports it. */
  private send(callId: string, record: CallRecord, event: ToolEvent, sdkAgent: string | undefined): void {
    this.calls.delete(callId);
    rememberId(this.reported, callId);
    event.framework = FRAMEWORK;
    event.toolCallId = callId;
    if (record.args !== undefined && record.args !== '') event.arguments = record.args;
    if (record.descriptionVersion !== undefined) event.descriptionVersion = record.descriptionVersion;
    const agent = this.options.agent ?? bounded(sdkAgent) ?? this.client.agent;
    if (agent !== undefined) event.agent = agent;
    if (record.model !== undefined) event.model = bounded(record.model);
    const trace = currentTrace();
    if (trace) event.traceId = trace.traceId;
    const sessionId = this.options.sessionId ?? this.client.session ?? trace?.groupId ?? bounded(record.conversationId) ?? trace?.traceId;
    if (sessionId !== undefined) event.sessionId = sessionId;
    if (trace?.metadata) event.metadata = trace.metadata;
    this.client.report(event);
  }

  /** The record of a call, made from what a hook or the tool was given when the model's response was not seen. */
  private recordOf(toolCall: ToolCallDetails['toolCall'], agent?: AnyAgent): CallRecord {
    let record = this.calls.get(toolCall.callId);
    if (!record) {
      const model = this.options.model ?? (typeof agent?.model === 'string' && agent.model ? agent.model : undefined);
      record = {
        tool: toolCall.name,
        // empty when the SDK redacted arguments that failed the tool's schema
        args: toolCall.arguments === '' ? undefined : parseArguments(toolCall.arguments),
        model,
        conversationId: undefined,
        descriptionVersion: this.client.descriptionVersionOf(toolCall.name),
      };
      remember(this.calls, toolCall.callId, record);
    }
    return record;
  }
}

function isRunner(target: Runner | AnyAgent): target is Runner {
  return typeof (target as Partial<Runner>).run === 'function' && typeof (target as Partial<Runner>).config === 'object';
}

function isFunctionCallDetails(details: { toolCall: unknown }): details is ToolCallDetails {
  const call = details?.toolCall as { type?: unknown; callId?: unknown; name?: unknown } | undefined;
  return call?.type === 'function_call' && typeof call.callId === 'string' && typeof call.name === 'string';
}

function malformedArguments(toolName: string, error: unknown): ToolEventError {
  const reason = (error as { message?: unknown } | null)?.message;
  return {
    type: 'InvalidToolInputError',
    message: `Invalid input for function tool '${toolName}': the arguments are not valid JSON (${String(reason)})`,
  };
}

/** The trace of the run being reported, unless tracing is off (the SDK's no-op trace carries no id of a run). */
function currentTrace(): { traceId: string; groupId: string | undefined; metadata: Record<string, unknown> | undefined } | undefined {
  const trace = getCurrentTrace();
  if (!trace || trace.traceId === NO_OP_ID) return undefined;
  const metadata = trace.metadata && Object.keys(trace.metadata).length > 0 ? (trace.metadata as Record<string, unknown>) : undefined;
  return { traceId: trace.traceId, groupId: bounded(trace.groupId ?? undefined), metadata };
}

/** The span the runner opened around the call (a function span in the tool hooks), unless tracing is off. */
function currentSpan() {
  const span = getCurrentSpan();
  return span && span.spanId !== NO_OP_ID ? span : undefined;
}

/** The agent whose turn this is, from the turn or agent span the runner opened around the model call. */
function currentAgentName(): string | undefined {
  const data = currentSpan()?.spanData as { type?: string; agent_name?: unknown; name?: unknown } | undefined;
  const name = data?.type === 'turn' ? data.agent_name : data?.type === 'agent' ? data.name : undefined;
  return typeof name === 'string' && name ? bounded(name) : undefined;
}

function bounded(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value.slice(0, MAX_NAME_CHARS);
}
