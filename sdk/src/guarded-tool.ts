// Puts the guard in front of a LangChain.js tool (docs/guard.md): its `invoke` checks the arguments
// first, so the tool's own code (its schema parsing, its function) never sees a call the guard corrected or refused.
// @langchain/core is loaded only here, only for tools that came from it.
import type { GuardVerdict } from './argument-guard';
import type { Toolcoach } from './toolcoach';

/** What the guard needs of a LangChain tool: its name and `invoke(input, config)`. */
export interface InvokableTool {
  name: string;
  invoke: (input: unknown, config?: unknown) => Promise<unknown>;
}

interface ToolCallInput {
  type: 'tool_call';
  id?: string;
  name: string;
  args: unknown;
}

/** Whose guard checks each wrapped tool: the client or session view that guarded it last. */
const guardOwners = new WeakMap<object, Toolcoach>();

/**
 * A LangChain tool. The OpenAI Agents SDK's function tools (`type: 'function'`) have an `invoke` too, of another
 * signature, and the SDK finds each tool's input parser by that function: their guard is a tool input guardrail
 * (openai-agents.ts), and their `invoke` is never replaced.
 */
export function isInvokableTool(tool: unknown): tool is InvokableTool {
  const candidate = tool as { invoke?: unknown; type?: unknown } | null;
  return typeof candidate?.invoke === 'function' && candidate.type !== 'function';
}

/**
 * Wraps `tool.invoke` in place, once per tool object: checks run against the current guard for the tool of the client
 * (or session view) that loaded it last.
 */
export function guardInvokableTool(tool: InvokableTool, owner: Toolcoach): void {
  const isWrapped = guardOwners.has(tool);
  guardOwners.set(tool, owner);
  if (isWrapped) return;
  const invoke = tool.invoke.bind(tool);
  tool.invoke = async (input: unknown, config?: unknown) => {
    const client = guardOwners.get(tool)!;
    const call = isToolCall(input) ? input : undefined;
    const args = call ? call.args : input;
    const verdict: GuardVerdict = client.checkArguments(tool.name, args);
    if (verdict.action === 'run') return invoke(input, config);
    const isReportedByHandler = call?.id !== undefined && hasToolcoachHandler(config);
    if (verdict.action === 'correct') {
      if (isReportedByHandler) client.noteGuardOutcome(call!.id!, { correction: verdict.correction });
      const corrected = verdict.correction.corrected;
      return invoke(call ? { ...call, args: corrected } : corrected, config);
    }
    if (isReportedByHandler) client.noteGuardOutcome(call!.id!, { prevented: true });
    else client.reportPrevented(tool.name, args, verdict.message, call?.id);
    return refusalOf(tool.name, verdict.message, args, call);
  };
}

/** The LangChain way to tell the model: an error ToolMessage for a tool call, else the exception a bad input raises. */
function refusalOf(toolName: string, message: string, args: unknown, call: ToolCallInput | undefined): unknown {
  if (call) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { ToolMessage } = require('@langchain/core/messages') as typeof import('@langchain/core/messages');
    return new ToolMessage({ content: message, status: 'error', tool_call_id: call.id ?? '', name: toolName });
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ToolInputParsingException } = require('@langchain/core/tools') as typeof import('@langchain/core/tools');
  throw new ToolInputParsingException(message, JSON.stringify(args));
}

function isToolCall(input: unknown): input is ToolCallInput {
  return typeof input === 'object' && input !== null && (input as { type?: unknown }).type === 'tool_call';
}

/** Whether a ToolcoachCallbackHandler sees this run: then it reports the call, with the run's model and trace. */
function hasToolcoachHandler(config: unknown): boolean {
  const callbacks = (config as { callbacks?: unknown } | undefined)?.callbacks;
  const handlers: unknown[] = Array.isArray(callbacks)
    ? callbacks
    : [
        ...((callbacks as { handlers?: unknown[] } | undefined)?.handlers ?? []),
        ...((callbacks as { inheritableHandlers?: unknown[] } | undefined)?.inheritableHandlers ?? []),
      ];
  return handlers.some((handler) => (handler as { name?: unknown } | null)?.name === 'toolcoach');
}
