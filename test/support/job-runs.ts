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
