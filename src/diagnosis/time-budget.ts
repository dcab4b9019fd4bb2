import { createContext, Script } from 'node:vm';

/**
 * Runs synchronous work with a deadline. A script run with `runInContext(context, { timeout })` is terminated by V8
 * at the deadline, and so is every function it calls, even one that belongs to the main context: a validation
 * stuck in a regex or an error explosion stops there, and the caller gets `timedOut` instead of a frozen process.
 * Node starts a watchdog thread per call, about 0.1 ms: callers skip it for work they know is small.
 */

export type Budgeted<T> = { timedOut: false; value: T; elapsedMs: number } | { timedOut: true; elapsedMs: number };

const context = createContext({ work: null as (() => unknown) | null });
const runWork = new Script('work()');

export function runWithinBudget<T>(work: () => T, budgetMs: number): Budgeted<T> {
  const startedAt = performance.now();
  const previous = context.work;
  context.work = work;
  try {
    const value = runWork.runInContext(context, { timeout: Math.max(1, Math.ceil(budgetMs)) }) as T;
    return { timedOut: false, value, elapsedMs: performance.now() - startedAt };
  } catch (error) {
    if (isTimeout(error)) return { timedOut: true, elapsedMs: performance.now() - startedAt };
    throw error;
  } finally {
    context.work = previous;
  }
}

function isTimeout(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
}
