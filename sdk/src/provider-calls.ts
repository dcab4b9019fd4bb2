// What the OpenAI and Anthropic client wrappers share (docs/integrations/openai-anthropic.md): the tools a request
// declares get their live descriptions, the tool calls a response makes are checked against those tools, and each call
// is reported once, when the next request carries its result (or at once, when it never reached a tool).
import type { ToolEvent } from '@toolcoach/core';
import { ArgumentGuard } from './argument-guard';
import type { Toolcoach } from './toolcoach';
import type { ToolLike } from './tool-definition';

/** A function tool as the request declares it: what toolcoach registers. */
export interface DeclaredTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** A tool call out of a response: OpenAI sends the arguments as JSON text, Anthropic as an object. */
export interface ModelToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

/** A tool's result as the next request sends it back. `isError` undefined: the provider has no flag (OpenAI). */
export interface ReturnedResult {
  callId: string;
  output: string;
  isError: boolean | undefined;
}

export interface ProviderWrapperOptions {
  /** The conversation: the `sessionId` of every call reported, and the side of a split canary (`forSession`). */
  session?: string;
  /**
   * Whether a result the provider does not flag (OpenAI's `role: "tool"` messages and `function_call_output` items have
   * no error field) reports a failed call. Default: text that begins with "Error" or "Exception", or a JSON object with
   * an `error` member.
   */
  isErrorResult?: (output: string, toolName: string) => boolean;
  /** Live descriptions in the outgoing requests' `tools`. Default true; false: the tools are registered all the same. */
  liveDescriptions?: boolean;
}

interface PendingCall {
  tool: string;
  arguments: unknown;
  model: string | undefined;
  seenAtMs: number;
  descriptionVersion: number | undefined;
}

// A call whose result never comes back (the conversation ended) is forgotten, oldest first, past this many.
const MAX_PENDING_CALLS = 10_000;
const MAX_TOOL_NAMES_IN_MESSAGE = 20;

/** One wrapped client's calls in flight and the tools it has loaded, for one framework name. */
export class ProviderCallTracker {
  private readonly client: Toolcoach;
  private readonly pending = new Map<string, PendingCall>();
  /** Tools loaded with toolcoach, by their own definition: a changed description or schema is registered again. */
  private readonly loaded = new Map<string, Promise<ToolLike>>();
  private readonly guards = new Map<string, ArgumentGuard>();

  constructor(
    toolcoach: Toolcoach,
    private readonly framework: string,
    private readonly options: ProviderWrapperOptions = {},
  ) {
    this.client = options.session ? toolcoach.forSession(options.session) : toolcoach;
  }

  /**
   * Before a request leaves: reports the calls whose results it carries, registers its tools and answers the
   * description each should be sent with (by name). Never throws.
   */
  async prepareRequest(declared: DeclaredTool[], results: ReturnedResult[]): Promise<Map<string, string>> {
    const descriptions = new Map<string, string>();
    try {
      for (const result of results) this.settle(result);
      const tools = await this.loadedTools(declared);
      if (this.options.liveDescriptions === false) return descriptions;
      for (const tool of tools) descriptions.set(tool.name, tool.description);
    } catch {
      // Reporting is best effort: the request goes out with its tools as given.
    }
    return descriptions;
  }

  /** After a response (or a stream's end): each tool call is checked against the request's tools and kept or reported. */
  recordCalls(calls: ModelToolCall[], model: string | undefined, declared: DeclaredTool[]): void {
    try {
      const nowMs = Date.now();
      for (const call of calls) this.recordCall(call, model, declared, nowMs);
    } catch {
      // see prepareRequest
    }
  }

  private recordCall(call: ModelToolCall, model: string | undefined, declared: DeclaredTool[], nowMs: number): void {
    const base: ToolEvent = { tool: call.name, status: 'error', framework: this.framework, occurredAt: new Date(nowMs).toISOString() };
    if (call.id) base.toolCallId = call.id;
    if (model) base.model = model;
    const tool = declared.find((candidate) => candidate.name === call.name);
    if (!tool) {
      const offered = declared.slice(0, MAX_TOOL_NAMES_IN_MESSAGE).map((candidate) => candidate.name);
      const message = `Tool ${JSON.stringify(call.name)} was not found among the request's tools (${offered.join(', ') || 'none'})`;
      this.client.report({ ...base, arguments: parsedOrRaw(call.arguments), error: { type: 'UnknownTool', message } });
      return;
    }
    const parsed = parseArguments(call.arguments);
    if (!parsed.ok) {
      const message = `The arguments of ${call.name} are not valid JSON: ${parsed.reason}`;
      this.client.report({ ...base, arguments: call.arguments, error: { type: 'SyntaxError', message } });
      return;
    }
    const answer = this.guardOf(tool).answer(parsed.value);
    if (!answer.valid) {
      const findings = answer.errors.map((error) => error.message).join('; ');
      const message = `Invalid arguments for tool ${call.name}: ${findings}`;
      this.client.report({ ...base, arguments: parsed.value, error: { type: 'InvalidToolArguments', message } });
      return;
    }
    if (!call.id) return;
    if (this.pending.size >= MAX_PENDING_CALLS) this.pending.delete(this.pending.keys().next().value!);
    const descriptionVersion = this.client.descriptionVersionOf(call.name);
    this.pending.set(call.id, { tool: call.name, arguments: parsed.value, model, seenAtMs: nowMs, descriptionVersion });
  }

  /** A result for a call this wrapper saw: reported once. Results of other calls (history sent again) are ignored. */
  private settle(result: ReturnedResult): void {
    const call = this.pending.get(result.callId);
    if (!call) return;
    this.pending.delete(result.callId);
    const isError = result.isError ?? (this.options.isErrorResult ?? looksLikeError)(result.output, call.tool);
    const event: ToolEvent = {
      tool: call.tool,
      status: isError ? 'error' : 'success',
      arguments: call.arguments,
      durationMs: Math.max(0, Date.now() - call.seenAtMs),
      occurredAt: new Date(call.seenAtMs).toISOString(),
      framework: this.framework,
      toolCallId: result.callId,
    };
    if (isError) event.error = { type: 'ToolError', message: result.output };
    else event.result = result.output;
    if (call.model) event.model = call.model;
    if (call.descriptionVersion !== undefined) event.descriptionVersion = call.descriptionVersion;
    this.client.report(event);
  }

  /** The request's tools as loaded: the ones not seen before are loaded together, in one registration. */
  private loadedTools(declared: DeclaredTool[]): Promise<ToolLike[]> {
    const keyOf = (tool: DeclaredTool) => JSON.stringify([tool.name, tool.description, tool.parameters]);
    const unseen = declared.filter(
      (tool, index) => !this.loaded.has(keyOf(tool)) && declared.findIndex((other) => keyOf(other) === keyOf(tool)) === index,
    );
    if (unseen.length > 0) {
      const own = unseen.map((tool): ToolLike => ({ name: tool.name, description: tool.description, parameters: tool.parameters }));
      const loading = this.client.loadTools(own);
      const names = new Set(unseen.map((tool) => tool.name));
      // a tool changed in the agent's code: only its newest definition is kept (and refreshed by toolcoach)
      for (const key of this.loaded.keys()) if (names.has((JSON.parse(key) as string[])[0])) this.loaded.delete(key);
      unseen.forEach((tool, index) =>
        this.loaded.set(
          keyOf(tool),
          loading.then((loaded) => loaded[index]),
        ),
      );
    }
    return Promise.all(declared.map((tool) => this.loaded.get(keyOf(tool))!));
  }

  private guardOf(tool: DeclaredTool): ArgumentGuard {
    const key = JSON.stringify([tool.name, tool.parameters]);
    let guard = this.guards.get(key);
    if (!guard) {
      // 'report': the guard's check only; the wrapper never runs a tool, so it corrects nothing
      guard = new ArgumentGuard(tool.name, tool.parameters, null, 'report');
      this.guards.set(key, guard);
    }
    return guard;
  }
}

function parseArguments(value: unknown): { ok: true; value: unknown } | { ok: false; reason: string } {
  if (typeof value !== 'string') return { ok: true, value: value ?? {} };
  // a call without arguments may come as "" (a stream that sent no argument deltas)
  if (value.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(value) };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

function parsedOrRaw(value: unknown): unknown {
  const parsed = parseArguments(value);
  return parsed.ok ? parsed.value : value;
}

/** The default reading of an unflagged result: what agents commonly send back when a tool failed. */
function looksLikeError(output: string): boolean {
  const text = output.trimStart();
  if (/^(?:error|exception|traceback)\b/i.test(text)) return true;
  if (!text.startsWith('{')) return false;
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    return parsed !== null && typeof parsed === 'object' && parsed.error !== undefined && parsed.error !== null && parsed.error !== false;
  } catch {
    return false;
  }
}
