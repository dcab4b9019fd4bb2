// How the framework integrations turn what a tool call left behind (its arguments as text, a thrown error, a result
// that reports a failure, the metadata of its run) into the fields of a ToolEvent. Pure.
import { ToolEventError } from '@toolcoach/core';

// The server refuses longer names and ids; a model name or thread id is never this long, a bug upstream could make one.
export const MAX_NAME_CHARS = 200;
// Where LangGraph (thread_id, from the config's configurable), the AI SDK's telemetry users and others put the
// conversation a run belongs to.
const SESSION_METADATA_KEYS = ['thread_id', 'session_id', 'sessionId'];

/** The conversation a run's metadata names, if any. */
export function sessionOf(metadata: Record<string, unknown> | undefined): string | undefined {
  for (const key of SESSION_METADATA_KEYS) {
    const value = metadata?.[key];
    if ((typeof value === 'string' && value) || typeof value === 'number') return String(value).slice(0, MAX_NAME_CHARS);
  }
  return undefined;
}

/** Arguments as a framework passes them as JSON text: the event carries the object, or the text when it is not JSON. */
export function parseArguments(input: string): unknown {
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}

export function contentText(content: unknown): string {
  return typeof content === 'string' ? content : JSON.stringify(content);
}

export function errorOf(error: unknown): ToolEventError {
  // Duck-typed: an error thrown in another realm (a VM context, a worker) is no `instanceof Error` here.
  const { name, message, stack, constructor } = (error ?? {}) as {
    name?: unknown;
    message?: unknown;
    stack?: unknown;
    constructor?: { name?: string };
  };
  if (typeof message !== 'string') return { type: typeof error, message: String(error) };
  const type = typeof name === 'string' && name ? name : (constructor?.name ?? 'Error');
  return typeof stack === 'string' ? { type, message, stack } : { type, message };
}

/** An envelope such as `{success: false, error: "..."}` or `{ok: false, error: {type, message}}`. */
export function failureOf(result: unknown): ToolEventError {
  const error = (result as { error?: unknown } | null)?.error;
  if (typeof error === 'string') return { type: 'ReportedFailure', message: error };
  if (error && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string') {
    const { type, name, message } = error as { type?: unknown; name?: unknown; message: string };
    return { type: typeof type === 'string' ? type : typeof name === 'string' ? name : 'ReportedFailure', message };
  }
  return { type: 'ReportedFailure', message: contentText(result) };
}

/** Whether argument text a model sent is JSON at all: a call whose text is not is malformed, reported with the text. */
export function isJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The failure of a call whose arguments were not JSON (its `arguments` are then the text as the model sent it). */
export function malformedArgumentsError(toolName: string, detail: string): ToolEventError {
  return { type: 'MalformedToolArguments', message: `the arguments the model sent for ${toolName} are not valid JSON; ${detail}` };
}
