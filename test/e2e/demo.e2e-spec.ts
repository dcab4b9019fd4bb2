import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_STARTUP_TIMEOUT_ENV } from '../support/startup-timeout';

// `npm run demo` as a person runs it (node scripts/demo.js, the built SDK, real LangChain.js), against the real backend
// on an empty project, so the demo's promise (both phases and a measured effect) is checked and never silently rots.
const DEMO = join(__dirname, '..', '..', 'scripts', 'demo.js');
const run = promisify(execFile);

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(async () => {
  await app?.close();
});

function runDemo() {
  const env = { ...process.env, TOOLCOACH_URL: app.baseUrl, TOOLCOACH_API_KEY: app.apiKey, ...TEST_STARTUP_TIMEOUT_ENV };
  return run(process.execPath, [DEMO], { env, timeout: 150_000 });
}

it('shows both phases on the default policies, fewer failures in the second, each canary promoted, and a measured "helped" per learned warning', async () => {
  const { stdout } = await runDemo();

  // the project's policies as a new user has them: each learned warning starts as an alternating canary
  expect(stdout).toContain('(guarded rollout is on, alternating');
  expect(stdout).toMatch(/== Phase 1: .*\(prime_factorization v1, factorial v1\)/);
  expect(stdout).toMatch(/== Phase 2: .*\(prime_factorization v[2-9], factorial v[2-9]\)/);
  const [, failed1, calls1, failed2, calls2] = stdout.match(/failed tool calls: phase 1 (\d+)\/(\d+), phase 2 (\d+)\/(\d+)/)!.map(Number);
  expect(failed1).toBeGreaterThan(0);
  expect(failed2 / calls2).toBeLessThan(failed1 / calls1 / 2);

  // the second nightly decided both canaries on their numbers: every agent is served the warnings from then on
  expect(stdout).toMatch(/== Nightly job again: 2 canaries promoted, 0 rolled back/);
  expect(stdout).toMatch(/prime_factorization v\d+ against v1: promoted: mistakes 0\/\d+ = 0%/);
  expect(stdout).toMatch(/factorial v2 against v1: promoted: mistakes 0\/\d+ = 0%/);
  const served = await app.request('GET', '/v1/tools/factorial/description');
  expect(served.body.description).toContain("'n' above 20 fails");

  const table = stdout.slice(stdout.indexOf('measured effect of each warning'));
  expect(table).toMatch(/^\s+tool\s+warning\s+mistakes without warning\s+mistakes with warning\s+verdict$/m);
  expect(table).toMatch(/^\s+prime_factorization\s+\S+\s+\d+\/\d+ = \d+% \[\d+%-\d+%\]\s+0\/\d+ = 0% \[\d+%-\d+%\]\s+helped$/m);
  expect(table).toMatch(/^\s+factorial\s+\S+\s+.*\s+helped$/m);

  // what the table printed is what the API holds
  const { body } = await app.request('GET', '/v1/recommendations?status=applied');
  const verdicts = body.items.map((r: { tool: string; effect: { verdict: string } | null }) => [r.tool, r.effect?.verdict]);
  expect(verdicts).toEqual(
    expect.arrayContaining([
      ['prime_factorization', 'helped'],
      ['factorial', 'helped'],
    ]),
  );

  // the handler named the model the scripted model announced, and gave calls that never ran no duration
  const unknown = await app.request('GET', '/v1/events?tool=prime_factorise&limit=5');
  expect(unknown.body.items.length).toBeGreaterThan(0);
  for (const event of unknown.body.items) {
    expect(event).toMatchObject({ model: 'scripted-reader-1', category: 'unknown_tool', durationMs: null, runId: expect.any(String) });
    expect(event.traceId).toEqual(expect.any(String));
    expect(event.metadata).toMatchObject({ demoSession: expect.any(Number) });
  }
}, 180_000);

it('refuses to run again on a project whose tools already carry warnings, and says how to get an empty one', async () => {
  const failure = await runDemo().then(
    () => undefined,
    (error: { code: number; stderr: string }) => error,
  );
  expect(failure?.code).toBe(1);
  expect(failure?.stderr).toContain('already carry warnings');
  expect(failure?.stderr).toContain('npm run cli -- project:create');
});
