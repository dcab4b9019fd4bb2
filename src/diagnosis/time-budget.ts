import { GCProfiler } from 'node:v8';
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

/**
 * The watchdog measures wall time, so on a machine busy with other processes, or in a long garbage-collection pause,
 * work that needs a fraction of its budget can still be cut off. Callers whose refusal is final (a schema refused at
 * registration, a schema the worker then skips) pass `starvedRetries`: an attempt cut off after less than half its
 * budget in CPU time outside garbage collection was starved, not expensive, and is run again, up to that many times.
 * Genuinely expensive work burns its budget computing and is cut off on the first attempt as before. (CPU time is the
 * process's, all threads: other threads' work only makes a retry less likely, never more.)
 */
export function runWithinBudget<T>(work: () => T, budgetMs: number, { starvedRetries = 0 }: { starvedRetries?: number } = {}): Budgeted<T> {
  const startedAt = performance.now();
  for (let attempt = 0; ; attempt++) {
    const mayRetry = attempt < starvedRetries;
    const gcProfiler = mayRetry ? new GCProfiler() : null;
    gcProfiler?.start();
    const cpuBefore = process.cpuUsage();
    const outcome = runOnce(work, budgetMs);
    const cpu = process.cpuUsage(cpuBefore);
    const gcMs = (gcProfiler?.stop()?.statistics ?? []).reduce((sum, gc) => sum + gc.cost, 0) / 1000;
    if (!outcome.timedOut) return { timedOut: false, value: outcome.value, elapsedMs: performance.now() - startedAt };
    const workCpuMs = (cpu.user + cpu.system) / 1000 - gcMs;
    if (!mayRetry || workCpuMs >= budgetMs / 2) return { timedOut: true, elapsedMs: performance.now() - startedAt };
  }
}

function runOnce<T>(work: () => T, budgetMs: number): { timedOut: false; value: T } | { timedOut: true } {
  const previous = context.work;
  context.work = work;
  try {
    return { timedOut: false, value: runWork.runInContext(context, { timeout: Math.max(1, Math.ceil(budgetMs)) }) as T };
  } catch (error) {
    if (isTimeout(error)) return { timedOut: true };
    throw error;
  } finally {
    context.work = previous;
  }
}

function isTimeout(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
}
