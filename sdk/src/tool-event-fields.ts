// How framework integrations turn what a framework hands them into fields of a ToolEvent. Pure.
import { ToolEventError } from '@toolcoach/core';

/** Frameworks pass a call's arguments as JSON text; the event carries the object, or the text when it is not JSON. */
export function parseArguments(input: string): unknown {
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}

/** The type, message and stack of whatever a tool threw. */
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
