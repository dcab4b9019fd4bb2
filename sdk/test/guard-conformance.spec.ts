import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type GuardConformanceTable, guardOutcomeOf, guardSectionOf } from '@toolcoach/core';
import { ArgumentGuard } from '../src/argument-guard';

// The SDK's guard held to the guard's contract (test/fixtures/guard-conformance.json): each call checked where the
// agent runs, with Ajv and the served guard section, must come out as the server's validate says.
const { schemas, cases } = JSON.parse(
  readFileSync(join(__dirname, '..', '..', 'test', 'fixtures', 'guard-conformance.json'), 'utf8'),
) as GuardConformanceTable;

describe('ArgumentGuard against the guard conformance table', () => {
  it.each(cases.map((testCase) => [testCase.name, testCase] as const))('%s', (_name, testCase) => {
    const guard = new ArgumentGuard(testCase.tool, schemas[testCase.tool], guardSectionOf(testCase), testCase.mode);
    expect(guard.compileError).toBeNull();
    const verdict = guard.check(testCase.arguments);
    expect(guardOutcomeOf(verdict, guard.answer(testCase.arguments).valid)).toEqual(testCase.expected);
  });

  it('corrects with the kinds of correction it made, for the event', () => {
    const guard = new ArgumentGuard('prime', schemas.prime, null, 'correct');
    expect(guard.check({ numbers: ['12'] })).toEqual({
      action: 'correct',
      correction: { original: { numbers: ['12'] }, corrected: { number: 12 }, kinds: ['rename', 'unwrap_array', 'numeric_string'] },
    });
  });

  it('checks learned limits only when the schema cannot be compiled', () => {
    const section = guardSectionOf(cases.find((testCase) => testCase.name === 'refuses a value above a learned upper limit')!);
    const guard = new ArgumentGuard('factorial', { type: 'object', properties: { n: { type: 'nonsense' } } }, section, 'correct');
    expect(guard.compileError).not.toBeNull();
    expect(guard.check({ n: 25 })).toEqual({
      action: 'refuse',
      message: "factorial was not called: 'n' is 25; above 20 fails (overflow), learned from 10 failed calls",
    });
    expect(guard.check({ n: 5, anything: 'goes' })).toEqual({ action: 'run' });
  });
});
