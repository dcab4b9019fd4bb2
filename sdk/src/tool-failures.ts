// How the framework integrations describe a failed tool call: an error a tool threw, a failure it returned as its
// result, and arguments a model sent as text. Shared by the LangChain, Mastra and LlamaIndex entry points.
import { ToolEventError } from '@toolcoach/core';

/** A thrown error as the event's `error`, duck-typed: an error of another realm (a VM, a worker) is no `instanceof Error`. */
export function errorOf(error: unknown): ToolEventError {
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

/** A failure a tool returned instead of throwing, such as `{success: false, error: "..."}` or `{ok: false, error: {type, message}}`. */
export function failureOf(result: unknown): ToolEventError {
  const error = (result as { error?: unknown } | null)?.error;
  if (typeof error === 'string') return { type: 'ReportedFailure', message: error };
  if (error && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string') {
    const { type, name, message } = error as { type?: unknown; name?: unknown; message: string };
    return { type: typeof type === 'string' ? type : typeof name === 'string' ? name : 'ReportedFailure', message };
  }
  return { type: 'ReportedFailure', message: typeof result === 'string' ? result : JSON.stringify(result) };
}

/** Arguments a model sent as JSON text: the parsed value, or `undefined` when the text is not JSON. */
export function parsedArguments(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/** The failure of a call whose arguments were not JSON: its `arguments` are the text as the model sent it. */
export function malformedArgumentsError(toolName: string, detail: string): ToolEventError {
  return { type: 'MalformedToolArguments', message: `the arguments the model sent for ${toolName} are not valid JSON; ${detail}` };
}

/** Bounded memory of calls still going on: the oldest is forgotten first, so abandoned runs cannot grow it forever. */
export function rememberBounded<V>(map: Map<string, V>, key: string, value: V, limit: number): void {
  if (map.size >= limit && !map.has(key)) map.delete(map.keys().next().value!);
  map.set(key, value);
}
