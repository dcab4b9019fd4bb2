import { randomUUID } from 'node:crypto';
import { runNightly } from '../support/job-runs';
import { sendEvents } from '../support/send-events';
import { startTestApp, TestApp } from '../support/test-app';

// A warning's measured effect with the SDK guard on (issue 22): the mistakes the model still made are counted apart as
// those that reached the tool, those the guard prevented, and the tool's calls the guard corrected.
const D1 = '2026-04-01';
const D2 = '2026-04-02';
const BEYOND = "factorial was not called: 'n' is 25; above 20 fails (overflow), learned from 10 failed calls";
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
  const registered = await t.request('PUT', '/v1/tools/factorial', {
    body: { description: 'Returns n! for an integer n.', parameters: { type: 'object', properties: { n: { type: 'integer' } } } },
  });
  expect(registered.status).toBeLessThan(300);
});

afterAll(() => t?.close());

const at = (day: string, i: number) => new Date(Date.parse(`${day}T08:00:00Z`) + i * 1000).toISOString();

type Outcome = 'success' | 'overflow' | 'prevented' | 'corrected';

function call(day: string, i: number, version: number, outcome: Outcome) {
  const base = { id: randomUUID(), tool: 'factorial', occurredAt: at(day, i), descriptionVersion: version };
  switch (outcome) {
    case 'success':
      return { ...base, status: 'success', arguments: { n: i % 21 }, result: 1 };
    case 'corrected':
      return {
        ...base,
        status: 'success',
        arguments: { n: 5 },
        result: 120,
        correction: { original: { n: '5' }, corrected: { n: 5 }, kinds: ['numeric_string'] },
      };
    case 'overflow':
      return {
        ...base,
        status: 'error',
        arguments: { n: 25 },
        error: { type: 'OverflowError', message: 'Factorial calculation overflow for n = 25' },
      };
    case 'prevented':
      return { ...base, status: 'error', arguments: { n: 25 }, prevented: true, error: { type: 'GuardRefused', message: BEYOND } };
  }
}

it("counts the guard's prevented and corrected calls on each side of the warning, apart from the mistakes that ran", async () => {
  // D1, version 1: ten overflows above 20 teach the limit; the nightly starts the warning as a canary (version 2),
  // served to every caller until the next nightly (the default policy, docs/rollout.md)
  const first = Array.from({ length: 73 }, (_, i) => call(D1, i, 1, i < 63 ? 'success' : 'overflow'));
  await sendEvents(t, first);
  expect((await runNightly(t, D1)).body).toMatchObject({ status: 'succeeded' });
  // the same run may apply the tool-quality checker's additions too (docs/tool-quality.md), each a version of its own
  const applied = await t.request('GET', '/v1/recommendations?status=applied&tool=factorial');
  const seen: number = applied.body.items.find((r: { kind: string }) => r.kind === 'learned_limit').appliedVersion;

  // D2: 40 calls of agents that had not fetched the descriptions again saw version 1 (15 overflows, no guard); 100 saw
  // the warning (2 overflows ran, 3 refused, 7 corrected): 100 calls a side, so the next nightly decides the canary
  const outcomes: Array<[number, Outcome]> = [
    ...Array.from({ length: 40 }, (_, i): [number, Outcome] => [1, i < 15 ? 'overflow' : 'success']),
    ...Array.from({ length: 100 }, (_, i): [number, Outcome] => [
      seen,
      i < 2 ? 'overflow' : i < 5 ? 'prevented' : i < 12 ? 'corrected' : 'success',
    ]),
  ];
  await sendEvents(
    t,
    outcomes.map(([version, outcome], i) => call(D2, i, version, outcome)),
  );
  expect((await runNightly(t, D2)).body).toMatchObject({ status: 'succeeded' });
  // the newest canary may be the next warning's (a tool-quality addition), started once this one was decided
  const canaries: Array<{ canaryVersion: number }> = (await t.request('GET', '/v1/rollout/canaries?tool=factorial')).body.items;
  expect(canaries.find((canary) => canary.canaryVersion === seen)).toMatchObject({
    status: 'promoted',
    canaryVersion: seen,
    decision: { look: 1, action: 'promote' },
  });

  // measured the night the canary was promoted
  const { body } = await t.request('GET', '/v1/recommendations?status=applied&tool=factorial');
  const [limit] = body.items.filter((r: { kind: string }) => r.kind === 'learned_limit');
  // the model still made the mistake 5 times with the warning (2 ran, 3 the guard stopped): the rate counts all 5
  expect(limit.effect).toMatchObject({ verdict: 'helped', method: 'version' });
  expect(limit.effect.withWarning).toMatchObject({ calls: 100, mistakes: 5, reachedToolCount: 2, preventedCount: 3, correctedCount: 7 });
  // without it: D1's 73 calls (10 overflows) and D2's 40 (15), all of which ran
  expect(limit.effect.withoutWarning).toMatchObject({
    calls: 113,
    mistakes: 25,
    reachedToolCount: 25,
    preventedCount: 0,
    correctedCount: 0,
  });
});
