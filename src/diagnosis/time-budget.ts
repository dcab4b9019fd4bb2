import { readFileSync } from 'node:fs';
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
 * Genuinely expensive work burns its budget computing and is cut off on the first attempt as before. The CPU time is
 * this thread's (threadCpuMs): the process's counted V8's concurrent marking and compiling on other threads, which
 * in a large heap passed for half a budget while the work itself slept (a starved attempt not retried, seen in CI).
 */
export function runWithinBudget<T>(work: () => T, budgetMs: number, { starvedRetries = 0 }: { starvedRetries?: number } = {}): Budgeted<T> {
  const startedAt = performance.now();
  for (let attempt = 0; ; attempt++) {
    const mayRetry = attempt < starvedRetries;
    const gcProfiler = mayRetry ? new GCProfiler() : null;
    gcProfiler?.start();
    const cpuBeforeMs = mayRetry ? threadCpuMs() : 0;
    const outcome = runOnce(work, budgetMs);
    const cpuMs = mayRetry ? threadCpuMs() - cpuBeforeMs : 0;
    const gcMs = (gcProfiler?.stop()?.statistics ?? []).reduce((sum, gc) => sum + gc.cost, 0) / 1000;
    if (!outcome.timedOut) return { timedOut: false, value: outcome.value, elapsedMs: performance.now() - startedAt };
    if (!mayRetry || cpuMs - gcMs >= budgetMs / 2) return { timedOut: true, elapsedMs: performance.now() - startedAt };
  }
}

// USER_HZ, the unit of /proc's CPU times: 100 on every Linux Node runs on (getconf CLK_TCK)
const MS_PER_CLOCK_TICK = 10;

/**
 * CPU time this thread has used, in ms (10 ms steps): /proc/thread-self/stat where there is one (Linux), else the
 * process's, all threads, which only makes a retry less likely, never more.
 */
function threadCpuMs(): number {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'latin1');
    // fields after the ")" that closes the command name: utime is field 14 and stime 15
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * MS_PER_CLOCK_TICK;
  } catch {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
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
