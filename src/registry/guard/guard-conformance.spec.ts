import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type GuardConformanceTable, guardOutcomeOf, guardVerdict } from '@toolcoach/core';
import { compileArgumentSchema } from '../../diagnosis/index';
import { checkArguments } from '../validate/argument-check';

// The guard's contract (test/fixtures/guard-conformance.json) as the server keeps it: validate's answer, then the
// verdict an SDK in the case's mode draws from it. The server is the reference the clients' suites are held to.
const table = JSON.parse(
  readFileSync(join(__dirname, '..', '..', '..', 'test', 'fixtures', 'guard-conformance.json'), 'utf8'),
) as GuardConformanceTable;

describe('validate against the guard conformance table', () => {
  it('has the cases the contract names', () => {
    expect(table.cases.length).toBeGreaterThanOrEqual(40);
    expect(new Set(table.cases.map((testCase) => testCase.name)).size).toBe(table.cases.length);
  });

  const check = (testCase: GuardConformanceTable['cases'][number]) =>
    checkArguments({
      tool: testCase.tool,
      arguments: testCase.arguments,
      schema: compileArgumentSchema(table.schemas[testCase.tool]),
      learnedRenames: new Map((testCase.guard?.renames ?? []).map((rename) => [rename.wrong, rename.intended])),
      learnedLimits: (testCase.guard?.limits ?? []).map((limit) => ({ ...limit, argumentPath: limit.path, warningId: 'learned' })),
    });

  // validate's answer is cut by its CPU budget (25 ms a call): the first calls of a fresh process load and compile the
  // name matching, which is not what a case is about (one CI run lost the first case's suggestion to it)
  beforeAll(() => {
    for (const testCase of table.cases) check(testCase);
  });

  it.each(table.cases.map((testCase) => [testCase.name, testCase] as const))('%s', (_name, testCase) => {
    const answer = check(testCase);
    const verdict = guardVerdict(testCase.tool, testCase.arguments, answer, testCase.mode);
    expect(guardOutcomeOf(verdict, answer.valid)).toEqual(testCase.expected);
  });
});
