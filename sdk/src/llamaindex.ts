// The LlamaIndex.TS entry point (@toolcoach/sdk/llamaindex), for agents of @llamaindex/workflow (`agent()`,
// `multiAgent()`) and `tool()` / FunctionTool tools of llamaindex 0.12. It loads @llamaindex/workflow only when an
// agent is instrumented. What LlamaIndex does with each failure (read in @llamaindex/workflow 1.1.24 and
// @llamaindex/core 0.6.22): a thrown error becomes a tool result with `isError`; input that fails the tool's zod
// schema is logged and passed to the tool anyway; arguments that are not JSON reach the tool as `{rawInput: text}`; an
// unknown tool name makes the agent throw "Tools not found" out of its step, which nobody awaits: the run never
// settles and the process gets an unhandled rejection. Only the model's own answer shows that call, so the agent's LLM
// is observed too.
import type { AgentWorkflow } from '@llamaindex/workflow';
import { ArgumentGuard, Correction } from './argument-guard';
import { LoadToolsOptions, Toolcoach } from './toolcoach';
import { remember } from './bounded-memory';
import { errorOf, failureOf, isJsonText, malformedArgumentsError, MAX_NAME_CHARS, parseArguments } from './event-fields';
import { toolView } from './tool-view';
import { ToolEvent, ToolEventError } from '@toolcoach/core';

/** What the integration needs of a LlamaIndex tool: `tool()` and `FunctionTool.from()` make these. */
export interface LlamaIndexToolLike {
  metadata: { name: string; description: string; parameters?: unknown };
  call?: (input: never) => unknown;
}

/** What the integration uses of an agent of the workflow (a FunctionAgent has all of it). */
interface WorkflowAgentLike {
  name: string;
  tools: LlamaIndexToolLike[];
  llm?: LlmLike;
}

interface LlmLike {
  metadata?: { model?: string };
  chat: (params: { stream?: boolean }) => Promise<unknown>;
}

export interface ToolcoachAgentOptions {
  /** The agent's name on every event; by default the name of the LlamaIndex agent that called the tool. */
  agent?: string;
  /** The model on every event; by default the model the agent's LLM names in its metadata. */
  model?: string;
  /** The session on every event; by default the client's session (`toolcoach.forSession(id)`). */
  sessionId?: string;
  /** Flags results that report a failure without throwing, such as `{success: false, error}`. */
  isFailure?: (result: unknown) => boolean;
}

interface ToolCallData {
  agentName: string;
  toolName: string;
  toolKwargs: unknown;
  toolId: string;
}

/** LlamaIndex's result event does not name the agent: the call event before it does. */
interface ToolResultData extends Omit<ToolCallData, 'agentName'> {
  toolOutput: { result: unknown; isError: boolean };
  raw: unknown;
}

interface ModelCall {
  /** The arguments as the model sent them, when it sent text. */
  text: string | undefined;
  model: string | undefined;
}

interface StartedCall {
  agentName: string;
  startedAtMs: number;
  occurredAt: string;
  descriptionVersion: number | undefined;
}

/** What a tool's `call` saw of one call, by the very input object the agent passes it and names in the result event. */
interface CallRecord {
  thrown?: unknown;
  schemaError?: ToolEventError;
  prevented?: boolean;
  correction?: Correction;
}

const FRAMEWORK = 'llamaindex';

const callRecords = new WeakMap<object, CallRecord>();
/** Each tool's schema check, compiled once from the JSON Schema LlamaIndex made of its zod schema. */
const schemaChecks = new WeakMap<object, ArgumentGuard>();
/** Which client guards each wrapped tool: the one (or the session view) that loaded it last with `guard`. */
const guardOwners = new WeakMap<object, Toolcoach>();
const wrappedTools = new WeakSet<object>();
/** Whom each wrapped LLM tells of the calls its answers ask for: the workflow (and agent) instrumented with it last. */
const modelWatchers = new WeakMap<object, { reporter: AgentReporter; agentName: string; tools: LlamaIndexToolLike[] }>();

/**
 * Reports every tool call of a LlamaIndex agent workflow to toolcoach, once, with the failures LlamaIndex handles
 * around the tool. Call it once per workflow, before running it; returns the workflow.
 */
export function instrumentAgent<W extends AgentWorkflow>(workflow: W, client: Toolcoach, options: ToolcoachAgentOptions = {}): W {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const events = require('@llamaindex/workflow') as typeof import('@llamaindex/workflow');
  const agents = () => workflow.getAgents() as unknown as WorkflowAgentLike[];
  const reporter = new AgentReporter(agents, client, options);
  for (const agent of agents()) {
    for (const tool of agent.tools) wrapCall(tool);
    if (agent.llm) reporter.observeModel(agent.name, agent.llm, agent.tools);
  }
  workflow.handle([events.agentToolCallEvent], (_context, event) => reporter.started(event.data));
  workflow.handle([events.agentToolCallResultEvent], (_context, event) => reporter.finished(event.data));
  return workflow;
}

/**
 * Registers the tools and gives each the description toolcoach serves, in place (`tool.metadata.description`, which
 * the agent sends the model at every step), and again after each refresh. With `guard`, each call is checked before
 * the tool runs: corrected, or refused with a message the model reads as the result. Never throws.
 */
export async function loadLlamaIndexTools<T extends LlamaIndexToolLike>(
  client: Toolcoach,
  tools: T[],
  options: LoadToolsOptions = {},
): Promise<T[]> {
  const views = tools.map((tool) =>
    toolView(
      tool,
      tool.metadata.name,
      {
        get: () => tool.metadata.description,
        set: (description) => (tool.metadata.description = description),
      },
      tool.metadata.parameters,
    ),
  );
  await client.loadTools(views, options);
  for (const tool of tools) {
    if (options.guard) guardOwners.set(tool, client);
    else guardOwners.delete(tool);
    wrapCall(tool);
  }
  return tools;
}

class AgentReporter {
  private readonly modelCalls = new Map<string, ModelCall>();
  private readonly started_ = new Map<string, StartedCall>();

  constructor(
    private readonly agents: () => WorkflowAgentLike[],
    private readonly client: Toolcoach,
    private readonly options: ToolcoachAgentOptions,
  ) {}

  started(data: ToolCallData): void {
    try {
      remember(this.started_, data.toolId, {
        agentName: data.agentName,
        startedAtMs: performance.now(),
        occurredAt: new Date().toISOString(),
        descriptionVersion: this.client.descriptionVersionOf(data.toolName),
      });
    } catch {
      // Never break the agent.
    }
  }

  finished(data: ToolResultData): void {
    try {
      const started = this.started_.get(data.toolId);
      this.started_.delete(data.toolId);
      const modelCall = this.modelCalls.get(data.toolId);
      this.modelCalls.delete(data.toolId);
      const record = isObject(data.toolKwargs) ? callRecords.get(data.toolKwargs) : undefined;
      const event: ToolEvent = { tool: data.toolName, status: 'success', toolCallId: data.toolId };
      if (started) event.occurredAt = started.occurredAt;
      const malformedText = malformedTextOf(data.toolKwargs, modelCall);
      event.arguments = malformedText ?? data.toolKwargs;
      const error = this.errorOf(data, record, malformedText);
      if (error) {
        event.status = 'error';
        event.error = error;
      }
      if (!data.toolOutput.isError && data.raw !== undefined) event.result = data.raw;
      if (started && malformedText === undefined && !record?.prevented) event.durationMs = performance.now() - started.startedAtMs;
      if (started?.descriptionVersion !== undefined) event.descriptionVersion = started.descriptionVersion;
      if (record?.correction) event.correction = record.correction;
      if (record?.prevented) event.prevented = true;
      this.send(event, started?.agentName, modelCall?.model);
    } catch {
      // Never break the agent.
    }
  }

  /** Watches the model's answers for the tool calls it asks for: their argument text, and names the agent lacks. */
  observeModel(agentName: string, llm: LlmLike, tools: LlamaIndexToolLike[]): void {
    const isWrapped = modelWatchers.has(llm);
    modelWatchers.set(llm, { reporter: this, agentName, tools });
    if (isWrapped) return;
    const chat = llm.chat.bind(llm);
    llm.chat = async (params) => {
      const response = await chat(params);
      const seen = new Map<string, { name: string; input: unknown }>();
      const settle = () => {
        const watcher = modelWatchers.get(llm)!;
        watcher.reporter.settleModelCalls(watcher.agentName, llm, watcher.tools, seen);
      };
      if (!isAsyncIterable(response)) {
        collectToolCalls((response as { message?: { options?: unknown } } | null)?.message?.options, seen);
        settle();
        return response;
      }
      return (async function* () {
        try {
          for await (const chunk of response) {
            collectToolCalls((chunk as { options?: unknown } | null)?.options, seen);
            yield chunk;
          }
        } finally {
          // also when the agent stops reading: it throws on an unknown name, on the chunk that carries it
          settle();
        }
      })();
    };
  }

  /** @internal The calls one answer of the model asked for: remembered for their results, or reported if unknown. */
  settleModelCalls(
    agentName: string,
    llm: LlmLike,
    tools: LlamaIndexToolLike[],
    seen: Map<string, { name: string; input: unknown }>,
  ): void {
    try {
      const model = modelOf(llm);
      const known = new Set(tools.map((tool) => tool.metadata.name));
      for (const [id, call] of seen) {
        const text = typeof call.input === 'string' ? call.input : undefined;
        if (known.has(call.name)) {
          remember(this.modelCalls, id, { text, model });
          continue;
        }
        const event: ToolEvent = {
          tool: call.name || 'unknown',
          status: 'error',
          toolCallId: id,
          occurredAt: new Date().toISOString(),
          error: { type: 'ToolNotFoundError', message: `Tools not found: ${call.name}` },
        };
        if (call.input !== undefined) event.arguments = text === undefined ? call.input : parseArguments(text);
        this.send(event, agentName, model);
      }
    } catch {
      // Never break the agent.
    }
  }

  private errorOf(data: ToolResultData, record: CallRecord | undefined, malformedText: string | undefined): ToolEventError | undefined {
    if (malformedText !== undefined) return malformedArgumentsError(data.toolName, 'LlamaIndex ran the tool with {rawInput: text}');
    if (record?.prevented) return { type: 'GuardRefused', message: String(data.raw) };
    const thrown = data.toolOutput.isError ? thrownErrorOf(record, data.toolOutput.result) : undefined;
    if (record?.schemaError) {
      const then = thrown ? `; the tool then failed: ${thrown.message}` : '';
      return { type: record.schemaError.type, message: `${record.schemaError.message}${then}` };
    }
    if (thrown) return thrown;
    if (this.options.isFailure?.(data.raw)) return failureOf(data.raw);
    return undefined;
  }

  private send(event: ToolEvent, agentName: string | undefined, model: string | undefined): void {
    event.framework = FRAMEWORK;
    const agent = this.options.agent ?? agentName;
    if (agent) event.agent = agent.slice(0, MAX_NAME_CHARS);
    const servedModel = this.options.model ?? model ?? modelOf(this.agents().find((a) => a.name === agentName)?.llm);
    if (servedModel) event.model = servedModel;
    const sessionId = this.options.sessionId ?? this.client.session;
    if (sessionId) event.sessionId = sessionId;
    this.client.report(event);
  }
}

/**
 * Wraps `tool.call` in place, once per tool: it notes what the agent's result event cannot carry (the error the tool
 * threw, input that failed the tool's schema) and applies the guard of the client that loaded the tool with `guard`.
 */
function wrapCall(tool: LlamaIndexToolLike): void {
  if (wrappedTools.has(tool) || typeof tool.call !== 'function') return;
  wrappedTools.add(tool);
  const call = (tool.call as (input: unknown) => unknown).bind(tool);
  tool.call = (async (input: unknown) => {
    const record: CallRecord = {};
    if (isObject(input)) callRecords.set(input, record);
    record.schemaError = schemaErrorOf(tool, input);
    const guard = guardOwners.get(tool);
    let args = input;
    if (guard) {
      const verdict = guard.checkArguments(tool.metadata.name, input);
      if (verdict.action === 'refuse') {
        record.prevented = true;
        return verdict.message;
      }
      if (verdict.action === 'correct') {
        record.correction = verdict.correction;
        record.schemaError = undefined;
        args = verdict.correction.corrected;
      }
    }
    try {
      return await call(args);
    } catch (error) {
      record.thrown = error;
      throw error;
    }
  }) as LlamaIndexToolLike['call'];
}

/** The tool's schema finding on the input, which LlamaIndex logs and then ignores (it runs the tool anyway). */
function schemaErrorOf(tool: LlamaIndexToolLike, input: unknown): ToolEventError | undefined {
  try {
    const parameters = tool.metadata.parameters;
    if (!isObject(parameters)) return undefined;
    let check = schemaChecks.get(tool);
    if (!check)
      schemaChecks.set(tool, (check = new ArgumentGuard(tool.metadata.name, parameters as Record<string, unknown>, null, 'report')));
    if (check.compileError) return undefined;
    const { valid, errors } = check.answer(input);
    if (valid) return undefined;
    const issues = errors.map((issue) => issue.message).join('; ');
    return { type: 'ToolInputValidationError', message: `the arguments do not match the schema of ${tool.metadata.name}: ${issues}` };
  } catch {
    return undefined;
  }
}

/** The error the tool threw (noted by its wrapped `call`), else LlamaIndex's text of it: "Error: Error(Name): message". */
function thrownErrorOf(record: CallRecord | undefined, text: unknown): ToolEventError {
  if (record && 'thrown' in record) return errorOf(record.thrown);
  const match = /^Error: (?:Error: )?Error\(([^)]{1,100})\): ([\s\S]*)$/.exec(String(text));
  return match ? { type: match[1], message: match[2] } : { type: 'Error', message: String(text) };
}

/** The text of arguments the model sent that were not JSON: LlamaIndex passes them on as `{rawInput: text}`. */
function malformedTextOf(kwargs: unknown, modelCall: ModelCall | undefined): string | undefined {
  if (modelCall?.text !== undefined && modelCall.text.trim() !== '' && !isJsonText(modelCall.text)) return modelCall.text;
  const keys = isObject(kwargs) ? Object.keys(kwargs) : [];
  const raw = (kwargs as { rawInput?: unknown } | null)?.rawInput;
  return keys.length === 1 && keys[0] === 'rawInput' && typeof raw === 'string' && !isJsonText(raw) ? raw : undefined;
}

function collectToolCalls(options: unknown, seen: Map<string, { name: string; input: unknown }>): void {
  const calls = (options as { toolCall?: unknown } | null | undefined)?.toolCall;
  if (!Array.isArray(calls)) return;
  for (const call of calls as Array<{ id?: unknown; name?: unknown; input?: unknown }>) {
    // a streamed call comes again in later chunks as it grows: the last one wins, as in the agent
    if (typeof call?.id === 'string' && typeof call.name === 'string') seen.set(call.id, { name: call.name, input: call.input });
  }
}

function modelOf(llm: LlmLike | undefined): string | undefined {
  const model = llm?.metadata?.model;
  return typeof model === 'string' && model ? model.slice(0, MAX_NAME_CHARS) : undefined;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof (value as { [Symbol.asyncIterator]?: unknown } | null)?.[Symbol.asyncIterator] === 'function';
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}
