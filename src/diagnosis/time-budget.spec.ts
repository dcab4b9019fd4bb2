import { Worker } from 'node:worker_threads';
import { runWithinBudget } from './time-budget';

/** Blocks this thread for `ms` without using CPU: how work looks to the watchdog when other processes hold the cores. */
function sleepWithoutCpu(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

// CPU time is the process's, all threads (Jest's and V8's helpers too): the starved cases use budgets long enough that
// other threads' work cannot pass for half of one.
const STARVED_BUDGET_MS = 300;

describe('runWithinBudget', () => {
  it('answers the value of work that finishes within its budget', () => {
    expect(runWithinBudget(() => 6 * 7, 50)).toMatchObject({ timedOut: false, value: 42 });
  });

  it('cuts off work that burns its whole budget in CPU, without trying it again', () => {
    let calls = 0;
    const outcome = runWithinBudget(
      () => {
        calls += 1;
        for (;;) Math.sqrt(calls);
      },
      30,
      { starvedRetries: 2 },
    );
    expect(outcome.timedOut).toBe(true);
    // a spin loop the machine starves may be retried too, but never more often than allowed
    expect(calls).toBeLessThanOrEqual(3);
  });

  /** Work whose first attempt sleeps past the budget (starved) and whose second finishes at once. */
  function expectStarvedFirstAttemptRetried() {
    let calls = 0;
    const outcome = runWithinBudget(
      () => {
        calls += 1;
        if (calls === 1) sleepWithoutCpu(5_000);
        return 'finished';
      },
      STARVED_BUDGET_MS,
      { starvedRetries: 2 },
    );
    expect(outcome).toMatchObject({ timedOut: false, value: 'finished' });
    expect(calls).toBe(2);
  }

  it('runs again work that was cut off while the process got almost no CPU, and answers its value', () => {
    expectStarvedFirstAttemptRetried();
  });

  it('tells starved work from expensive work by its own thread CPU, whatever other threads of the process spend', async () => {
    // another thread of this process spins (as V8's concurrent marking does in a large heap) while the work sleeps
    const spinner = new Worker('const end = Date.now() + 3000; while (Date.now() < end);', { eval: true });
    await new Promise((resolve) => spinner.once('online', resolve));
    try {
      expectStarvedFirstAttemptRetried();
    } finally {
      await spinner.terminate();
    }
  });

  it('gives up on starved work after the retries it was allowed', () => {
    let calls = 0;
    const outcome = runWithinBudget(
      () => {
        calls += 1;
        sleepWithoutCpu(5_000);
      },
      STARVED_BUDGET_MS,
      { starvedRetries: 2 },
    );
    expect(outcome.timedOut).toBe(true);
    expect(calls).toBe(3);
  });

  it('never runs work twice when no retries are allowed (the per-validation budget)', () => {
    let calls = 0;
    const outcome = runWithinBudget(() => {
      calls += 1;
      sleepWithoutCpu(1_000);
    }, 20);
    expect(outcome.timedOut).toBe(true);
    expect(calls).toBe(1);
  });
});
