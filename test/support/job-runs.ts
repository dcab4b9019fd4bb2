import type { TestApp, TestResponse } from './test-app';

const FINAL_STATUSES = ['succeeded', 'failed', 'skipped'];

/**
 * Polls GET /v1/jobs/:id until the run has a final status and answers that response; throws, naming the run and its
 * last status, when it has none within `timeoutMs`.
 */
export async function waitForRun(t: Pick<TestApp, 'request'>, id: string, timeoutMs = 20_000): Promise<TestResponse> {
  const deadline = Date.now() + timeoutMs;
  let last: TestResponse | undefined;
  while (Date.now() < deadline) {
    last = await t.request('GET', `/v1/jobs/${id}`);
    if (last.status !== 200) throw new Error(`GET /v1/jobs/${id} answered ${last.status}: ${JSON.stringify(last.body)}`);
    if (FINAL_STATUSES.includes(last.body.status)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`run ${id} did not finish within ${timeoutMs} ms; last seen: ${JSON.stringify(last?.body)}`);
}

/**
 * POST /v1/jobs/nightly (for `date`, else yesterday) and, when it was queued (202), the run once it has finished.
 * Any other answer (400, 409, 503) is returned as it came.
 */
export async function runNightly(t: Pick<TestApp, 'request'>, date?: string): Promise<TestResponse> {
  const queued = await t.request('POST', date ? `/v1/jobs/nightly?date=${date}` : '/v1/jobs/nightly');
  if (queued.status !== 202) return queued;
  return waitForRun(t, queued.body.id);
}

const DAY_MS = 86_400_000;

/**
 * Waits, if need be, until the UTC day has at least two minutes left and began over two seconds ago. For tests whose
 * calls are stamped at the real time and whose nightlies all run for today: a day that changes in the middle would
 * split their days' calls across two dates.
 */
async function awayFromDayChange(): Promise<void> {
  const isAway = () => Date.now() % DAY_MS > 2_000 && Date.now() % DAY_MS < DAY_MS - 120_000;
  while (!isAway()) await new Promise((resolve) => setTimeout(resolve, 500));
}

/** The longest awayFromDayChange can wait, with a margin. */
const DAY_CHANGE_WAIT_MS = 125_000;

/**
 * `beforeAll(setUp, timeoutMs)` that first waits out a UTC day change (awayFromDayChange), the wait added to the hook's
 * timeout: a file that starts in a day's last two minutes waits, and its own set-up still gets `timeoutMs`. (Waiting
 * inside a plain beforeAll ran past Jest's 30 s hook timeout in a CI run that started at 23:58.)
 */
export function beforeAllAwayFromDayChange(setUp: () => Promise<void>, timeoutMs = 60_000): void {
  beforeAll(async () => {
    await awayFromDayChange();
    await setUp();
  }, DAY_CHANGE_WAIT_MS + timeoutMs);
}
