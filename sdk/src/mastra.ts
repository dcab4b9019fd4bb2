// The Mastra entry point (@toolcoach/sdk/mastra). It imports only types of @mastra/core: an output processor is any
// object with an `id` and a `processOutputStream`, and a tool is a plain object whose `description` Mastra reads at
// every run. Mastra (1.x) runs output processors on every part of `generate` and `stream`, including the parts of
// tool calls that never reach a tool: tool-error parts for an unknown name, tool-result parts whose result is its
// `{error: true, message: "Tool input validation failed ..."}` for schema-invalid input, and the argument text of a
// call whose JSON it could not parse (its tool-call part then has no `args`).
import type { Processor, ProcessOutputStreamArgs } from '@mastra/core/processors';
import type { ChunkType } from '@mastra/core/stream';
import { LoadToolsOptions, Toolcoach } from './toolcoach';
import { remember } from './bounded-memory';
import { errorOf, failureOf, isJsonText, malformedArgumentsError, MAX_NAME_CHARS } from './event-fields';
import { toolView } from './tool-view';
import { ToolEvent, ToolEventError } from '@toolcoach/core';

export interface ToolcoachProcessorOptions {
  /** The agent's name on every event; by default the client's `agent` (Mastra does not tell output processors its agent). */
  agent?: string;
  /** The model on every event; by default the model Mastra names for the step that asked for the call. */
  model?: string;
  /**
   * The session on every event. By default the client's session (`toolcoach.forSession(id)`, e.g. for the Mastra memory
   * thread of a conversation), else the run.
   */
  sessionId?: string;
  /** Flags results that report a failure without throwing, such as `{success: false, error}`. */
  isFailure?: (result: unknown) => boolean;
}

/** What `loadMastraTools` reads of a tool of the agent's record: `createTool(...)`, or an AI SDK tool. */
interface MastraToolLike {
  description?: string;
  /** zod or another Standard Schema (Mastra, AI SDK 5+), or JSON Schema; AI SDK 4 tools name it `parameters`. */
  inputSchema?: unknown;
  parameters?: unknown;
  execute?: (input: unknown, context?: unknown) => Promise<unknown>;
}

const FRAMEWORK = 'mastra';
const STATE_KEY = 'toolcoach';
const INPUT_VALIDATION = /^Tool input validation failed\b/;
const OUTPUT_VALIDATION = /^Tool output validation failed\b/;

interface OpenCall {
  tool: string;
  args: unknown;
  /** The argument text when it was not JSON Mastra could read: the call is reported as malformed. */
  malformedText: string | undefined;
  startedAtMs: number;
  occurredAt: string;
  descriptionVersion: number | undefined;
}

/** What one run (one `generate` or `stream`) keeps between its parts, in the processor state Mastra gives each run. */
interface RunState {
  argumentText: Map<string, string>;
  open: Map<string, OpenCall>;
  /** Events of the current step, sent when the step finishes and names its model. */
  pending: ToolEvent[];
  model: string | undefined;
}

interface PartPayload {
  toolCallId?: string;
  toolName?: string;
  args?: unknown;
  argsTextDelta?: string;
  result?: unknown;
  isError?: boolean;
  error?: unknown;
  providerExecuted?: boolean;
  modelId?: string;
  metadata?: { modelMetadata?: { modelId?: string } };
}

/**
 * Turns every tool call of a Mastra agent into one toolcoach event, the failures Mastra handles before or around the
 * tool included. Add it to the agent's `outputProcessors`; for one conversation of many, give it that conversation's
 * view, `new ToolcoachProcessor(toolcoach.forSession(id))`, or its id as `sessionId`.
 */
export class ToolcoachProcessor implements Processor<'toolcoach'> {
  readonly id = 'toolcoach';
  readonly name = 'toolcoach';

  constructor(
    private readonly client: Toolcoach,
    private readonly options: ToolcoachProcessorOptions = {},
  ) {}

  async processOutputStream(args: ProcessOutputStreamArgs): Promise<ChunkType> {
    try {
      this.observe(args);
    } catch {
      // Never break the agent.
    }
    return args.part;
  }

  private observe({ part, state }: ProcessOutputStreamArgs): void {
    const run = runStateOf(state);
    const payload = ((part as { payload?: unknown }).payload ?? {}) as PartPayload;
    const runId = (part as { runId?: unknown }).runId;
    switch (part.type) {
      case 'tool-call-delta':
        if (payload.toolCallId && typeof payload.argsTextDelta === 'string') {
          const text = (run.argumentText.get(payload.toolCallId) ?? '') + payload.argsTextDelta;
          remember(run.argumentText, payload.toolCallId, text);
        }
        return;
      case 'tool-call':
        return this.openCall(run, payload);
      case 'tool-result':
      case 'tool-error':
        return this.closeCall(run, part.type, payload, typeof runId === 'string' && runId ? runId : undefined);
      case 'response-metadata':
        if (typeof payload.modelId === 'string' && payload.modelId) run.model = payload.modelId.slice(0, MAX_NAME_CHARS);
        return;
      case 'step-finish': {
        const model = payload.metadata?.modelMetadata?.modelId;
        if (typeof model === 'string' && model) run.model = model.slice(0, MAX_NAME_CHARS);
        return this.sendPending(run);
      }
      case 'finish':
      case 'error':
      case 'abort':
      case 'tripwire':
        return this.sendPending(run);
    }
  }

  private openCall(run: RunState, payload: PartPayload): void {
    const { toolCallId, toolName } = payload;
    if (!toolCallId || !toolName || payload.providerExecuted) return;
    const text = run.argumentText.get(toolCallId);
    run.argumentText.delete(toolCallId);
    // Mastra parses (and repairs) the text itself; only text it could not read leaves the call without `args`
    const isMalformed = payload.args === undefined && text !== undefined && text.trim() !== '' && !isJsonText(text);
    remember(run.open, toolCallId, {
      tool: toolName,
      args: isMalformed ? text : payload.args,
      malformedText: isMalformed ? text : undefined,
      startedAtMs: performance.now(),
      occurredAt: new Date().toISOString(),
      descriptionVersion: this.client.descriptionVersionOf(toolName),
    });
  }

  private closeCall(run: RunState, type: 'tool-result' | 'tool-error', payload: PartPayload, runId: string | undefined): void {
    const { toolCallId } = payload;
    if (!toolCallId || payload.providerExecuted) return;
    const call = run.open.get(toolCallId);
    run.open.delete(toolCallId);
    if (!call) return;
    const event: ToolEvent = {
      tool: call.tool,
      status: 'success',
      toolCallId,
      occurredAt: call.occurredAt,
      framework: FRAMEWORK,
    };
    if (call.args !== undefined) event.arguments = call.args;
    if (call.descriptionVersion !== undefined) event.descriptionVersion = call.descriptionVersion;
    const outcome = this.outcomeOf(type, payload, call);
    if (outcome.error) {
      event.status = 'error';
      event.error = outcome.error;
    }
    if (type === 'tool-result' && payload.result !== undefined) event.result = payload.result;
    const guard = this.client.takeGuardOutcome(toolCallId);
    if (guard?.correction) event.correction = guard.correction;
    if (guard?.prevented) {
      event.prevented = true;
      event.error = { type: 'GuardRefused', message: outcome.error?.message ?? 'refused by the guard' };
    } else if (outcome.didRun) event.durationMs = performance.now() - call.startedAtMs;
    if (runId) {
      event.runId = runId.slice(0, MAX_NAME_CHARS);
      event.traceId = event.runId;
    }
    if (this.options.agent !== undefined) event.agent = this.options.agent;
    const sessionId = this.options.sessionId ?? this.client.session ?? runId;
    if (sessionId !== undefined) event.sessionId = sessionId.slice(0, MAX_NAME_CHARS);
    run.pending.push(event);
  }

  /** Whether the tool's own code ran (the call has a duration), and the failure if the call failed. */
  private outcomeOf(type: 'tool-result' | 'tool-error', payload: PartPayload, call: OpenCall): { didRun: boolean; error?: ToolEventError } {
    if (call.malformedText !== undefined) {
      const said = type === 'tool-error' ? errorOf(payload.error).message : handledFailureOf(payload.result)?.message;
      return { didRun: false, error: malformedArgumentsError(call.tool, said ?? 'Mastra ran the tool without them') };
    }
    if (type === 'tool-error') return thrownOutcomeOf(payload.error);
    const handled = handledFailureOf(payload.result);
    if (handled) return { didRun: handled.type !== 'ToolInputValidationError', error: handled };
    if (payload.isError) return { didRun: true, error: failureOf(payload.result) };
    if (this.options.isFailure?.(payload.result)) return { didRun: true, error: failureOf(payload.result) };
    return { didRun: true };
  }

  private sendPending(run: RunState): void {
    const events = run.pending.splice(0);
    for (const event of events) {
      const model = this.options.model ?? run.model;
      if (model !== undefined) event.model = model;
      this.client.report(event);
    }
  }
}

/**
 * Registers a Mastra agent's tools (the record you give `new Agent({ tools })`, under the names the model calls them
 * by) and gives each the description toolcoach serves, in place: Mastra reads a tool's description at every run, so
 * the next `generate` or `stream` uses it, and so does the run after each refresh. With `guard`, each call's
 * arguments are checked before the tool's `execute` (after Mastra's own schema check): a call the learned limits say
 * fails is refused with Mastra's `{error: true, message}` result, which the model reads. Never throws.
 */
export async function loadMastraTools<T extends Record<string, object>>(
  client: Toolcoach,
  tools: T,
  options: LoadToolsOptions = {},
): Promise<T> {
  const entries = Object.entries(tools) as Array<[string, MastraToolLike]>;
  const views = entries.map(([name, tool]) =>
    toolView(
      tool,
      name,
      {
        get: () => tool.description ?? '',
        set: (description) => (tool.description = description),
      },
      tool.inputSchema ?? tool.parameters,
    ),
  );
  await client.loadTools(views, options);
  if (options.guard) for (const [name, tool] of entries) guardExecute(name, tool, client);
  return tools;
}

/** Which client guards each wrapped tool: the one (or the session view) that loaded it last. */
const guardOwners = new WeakMap<object, Toolcoach>();

function guardExecute(name: string, tool: MastraToolLike, owner: Toolcoach): void {
  const isWrapped = guardOwners.has(tool);
  guardOwners.set(tool, owner);
  if (isWrapped || typeof tool.execute !== 'function') return;
  const execute = tool.execute.bind(tool);
  tool.execute = async (input: unknown, context?: unknown) => {
    const client = guardOwners.get(tool)!;
    const verdict = client.checkArguments(name, input);
    if (verdict.action === 'run') return execute(input, context);
    const toolCallId = (context as { agent?: { toolCallId?: unknown } } | undefined)?.agent?.toolCallId;
    const callId = typeof toolCallId === 'string' && toolCallId ? toolCallId : undefined;
    if (verdict.action === 'correct') {
      if (callId) client.noteGuardOutcome(callId, { correction: verdict.correction });
      return execute(verdict.correction.corrected, context);
    }
    // inside an agent run the processor reports the refusal with the run; a direct call has nobody else to report it
    if (callId) client.noteGuardOutcome(callId, { prevented: true });
    else client.reportPrevented(name, input, verdict.message, undefined);
    return { error: true, message: verdict.message };
  };
}

function runStateOf(state: Record<string, unknown>): RunState {
  let run = state[STATE_KEY] as RunState | undefined;
  if (!run) {
    run = { argumentText: new Map(), open: new Map(), pending: [], model: undefined };
    state[STATE_KEY] = run;
  }
  return run;
}

/**
 * Mastra's own failure results: `{error: true, message}` for input that failed the tool's schema (the tool never ran),
 * output that failed its output schema, and the guard's refusals.
 */
function handledFailureOf(result: unknown): ToolEventError | undefined {
  const { error, message } = (result ?? {}) as { error?: unknown; message?: unknown };
  if (error !== true || typeof message !== 'string') return undefined;
  if (INPUT_VALIDATION.test(message)) return { type: 'ToolInputValidationError', message };
  if (OUTPUT_VALIDATION.test(message)) return { type: 'ToolOutputValidationError', message };
  return { type: 'ToolError', message };
}

/** A tool-error part: Mastra wraps what the tool threw in a MastraError (TOOL_EXECUTION_FAILED) whose cause it is. */
function thrownOutcomeOf(error: unknown): { didRun: boolean; error: ToolEventError } {
  const { id, cause, name } = (error ?? {}) as { id?: unknown; cause?: unknown; name?: unknown };
  if (id === 'TOOL_EXECUTION_FAILED' && cause) return { didRun: true, error: errorOf(cause) };
  // ToolNotFoundError, and a call without arguments: no tool ran
  return { didRun: name !== 'ToolNotFoundError' && !isUnparsedArguments(error), error: errorOf(error) };
}

function isUnparsedArguments(error: unknown): boolean {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && message.includes('the provided JSON could not be parsed');
}
