import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { compileArgumentSchema } from './argument-schema';
import { diagnose } from './categorizer';
import type { Diagnosis, DiagnosisInput } from './diagnosis.types';

interface Fixture {
  id: string;
  source: string;
  tool: string;
  arguments: unknown;
  error: { type: string | null; message: string };
  schema?: Record<string, unknown>;
  expected: Partial<Diagnosis> & Pick<Diagnosis, 'category' | 'subtype'>;
}

const CORPUS_PATH = join(__dirname, '../../test/fixtures/categorizer/corpus.jsonl');
const EXTRACTED_FIELDS = ['argumentPath', 'wrongArgument', 'intendedArgument', 'offendingValue', 'arrayForScalar'] as const;

function loadCorpus(): Fixture[] {
  return readFileSync(CORPUS_PATH, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Fixture);
}

function toInput(fixture: Fixture): DiagnosisInput {
  return {
    tool: fixture.tool,
    arguments: fixture.arguments,
    error: fixture.error,
    schema: fixture.schema ? compileArgumentSchema(fixture.schema) : null,
  };
}

interface Tally {
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
}

function tallyBy(pairs: readonly { expected: string; actual: string }[]): Map<string, Tally> {
  const tallies = new Map<string, Tally>();
  const tallyOf = (label: string): Tally => {
    const existing = tallies.get(label) ?? { truePositives: 0, falsePositives: 0, falseNegatives: 0 };
    tallies.set(label, existing);
    return existing;
  };
  for (const { expected, actual } of pairs) {
    if (expected === actual) {
      tallyOf(expected).truePositives++;
    } else {
      tallyOf(expected).falseNegatives++;
      tallyOf(actual).falsePositives++;
    }
  }
  return tallies;
}

function formatTable(title: string, tallies: Map<string, Tally>): string {
  const rows = [...tallies.entries()].sort(([a], [b]) => a.localeCompare(b));
  const ratio = (numerator: number, denominator: number): string =>
    denominator === 0 ? '   -  ' : (numerator / denominator).toFixed(3).padStart(6);
  const lines = [`${title.padEnd(38)} precision  recall  support`];
  for (const [label, tally] of rows) {
    const support = tally.truePositives + tally.falseNegatives;
    lines.push(
      `${label.padEnd(38)} ${ratio(tally.truePositives, tally.truePositives + tally.falsePositives)}    ${ratio(tally.truePositives, support)}  ${String(support).padStart(7)}`,
    );
  }
  return lines.join('\n');
}

describe('diagnose on the fixture corpus of real library messages', () => {
  const corpus = loadCorpus();
  const results = corpus.map((fixture) => ({ fixture, actual: diagnose(toInput(fixture)) }));

  const categoryPairs = results.map(({ fixture, actual }) => ({ expected: fixture.expected.category, actual: actual.category }));
  const subtypePairs = results.map(({ fixture, actual }) => ({
    expected: `${fixture.expected.category}/${fixture.expected.subtype ?? '-'}`,
    actual: `${actual.category}/${actual.subtype ?? '-'}`,
  }));
  const categoryAccuracy = categoryPairs.filter((pair) => pair.expected === pair.actual).length / corpus.length;
  const subtypeAccuracy = subtypePairs.filter((pair) => pair.expected === pair.actual).length / corpus.length;

  const extractionChecks = results.flatMap(({ fixture, actual }) =>
    EXTRACTED_FIELDS.filter((field) => field in fixture.expected).map((field) => ({
      id: fixture.id,
      field,
      expected: fixture.expected[field],
      actual: actual[field],
    })),
  );
  const extractionMismatches = extractionChecks.filter((check) => check.expected !== check.actual);
  const extractionAccuracy = 1 - extractionMismatches.length / Math.max(1, extractionChecks.length);

  beforeAll(() => {
    const bySource = new Map<string, number>();
    for (const fixture of corpus) bySource.set(fixture.source, (bySource.get(fixture.source) ?? 0) + 1);
    const misses = results
      .filter(({ fixture, actual }) => fixture.expected.category !== actual.category || fixture.expected.subtype !== actual.subtype)
      .map(
        ({ fixture, actual }) =>
          `  ${fixture.id}: expected ${fixture.expected.category}/${fixture.expected.subtype} got ${actual.category}/${actual.subtype}`,
      );
    console.log(
      [
        `corpus: ${corpus.length} fixtures`,
        `by source: ${[...bySource.entries()].map(([source, count]) => `${source}=${count}`).join(', ')}`,
        '',
        formatTable('category', tallyBy(categoryPairs)),
        '',
        formatTable('category/subtype', tallyBy(subtypePairs)),
        '',
        `category accuracy ${categoryAccuracy.toFixed(3)}, subtype accuracy ${subtypeAccuracy.toFixed(3)}, ` +
          `extraction accuracy ${extractionAccuracy.toFixed(3)} (${extractionChecks.length - extractionMismatches.length}/${extractionChecks.length})`,
        `misclassified (${misses.length}):`,
        ...misses,
        `extraction mismatches (${extractionMismatches.length}):`,
        ...extractionMismatches.map(
          (check) => `  ${check.id}.${check.field}: expected ${String(check.expected)} got ${String(check.actual)}`,
        ),
      ].join('\n'),
    );
  });

  it('has a corpus covering every category', () => {
    const categories = new Set(corpus.map((fixture) => fixture.expected.category));
    expect([...categories].sort()).toEqual(
      ['argument_mismatch', 'out_of_range', 'overflow', 'runtime_error', 'timeout', 'unknown', 'unknown_tool'].sort(),
    );
    expect(corpus.length).toBeGreaterThanOrEqual(250);
  });

  it('gets the category right for at least 90% of fixtures', () => {
    expect(categoryAccuracy).toBeGreaterThanOrEqual(0.9);
  });

  it('gets category and subtype right for at least 85% of fixtures', () => {
    expect(subtypeAccuracy).toBeGreaterThanOrEqual(0.85);
  });

  it('extracts the stated argumentPath, names, value and arrayForScalar for at least 90% of checks', () => {
    expect(extractionAccuracy).toBeGreaterThanOrEqual(0.9);
  });
});

describe('diagnose', () => {
  const integerNumberSchema = compileArgumentSchema({
    type: 'object',
    properties: { number: { type: 'integer' } },
    required: ['number'],
  });
  const factorialSchema = compileArgumentSchema({
    type: 'object',
    properties: { n: { type: 'integer', minimum: 0, maximum: 20 } },
    required: ['n'],
    additionalProperties: false,
  });
  const failed = (message: string, type: string | null = null) => ({ type, message });

  it('reads {numbers:[1,2]} against {number: integer} as one renamed argument sent as an array', () => {
    const diagnosis = diagnose({
      tool: 'square',
      arguments: { numbers: [1, 2] },
      error: failed('Tool execution failed'),
      schema: integerNumberSchema,
    });
    expect(diagnosis).toEqual({
      category: 'argument_mismatch',
      subtype: 'unknown_argument',
      argumentPath: '/numbers',
      evidence: 'schema',
      wrongArgument: 'numbers',
      intendedArgument: 'number',
      offendingValue: null,
      arrayForScalar: true,
    });
  });

  it.each([
    "Function execution failed: Missing number argument. Expected: 'number', 'n', 'num', 'value', or 'integer'. Received: numbers",
    'Error: missing `number` parameter',
    "ToolError: Missing 'number' field in input",
  ])('reads a tool naming its missing argument between the words, without a schema, as the rename it is: %s', (message) => {
    const diagnosis = diagnose({ tool: 'prime_factors', arguments: { numbers: [12, 15, 18] }, error: failed(message) });
    expect(diagnosis).toMatchObject({
      category: 'argument_mismatch',
      subtype: 'unknown_argument',
      argumentPath: '/numbers',
      wrongArgument: 'numbers',
      intendedArgument: 'number',
      arrayForScalar: true,
    });
  });

  it('does not read the words of "missing required argument" as an argument name', () => {
    const diagnosis = diagnose({ tool: 'f', arguments: { b: 1 }, error: failed('Missing required argument') });
    expect(diagnosis).toMatchObject({ category: 'argument_mismatch', subtype: 'missing_argument', argumentPath: null });
  });

  it('lets the schema decide over a contradicting message', () => {
    const diagnosis = diagnose({ tool: 'factorial', arguments: { n: 25 }, error: failed('connect ECONNREFUSED'), schema: factorialSchema });
    expect(diagnosis).toMatchObject({
      category: 'out_of_range',
      subtype: 'above_maximum',
      argumentPath: '/n',
      offendingValue: 25,
      evidence: 'schema',
    });
  });

  it('falls through to the message when the schema accepts the arguments', () => {
    const openFactorial = compileArgumentSchema({ type: 'object', properties: { n: { type: 'integer' } } });
    const diagnosis = diagnose({
      tool: 'factorial',
      arguments: { n: 25 },
      error: failed('Factorial calculation overflow'),
      schema: openFactorial,
    });
    expect(diagnosis).toMatchObject({ category: 'overflow', evidence: 'message', offendingValue: 25 });
  });

  it('treats unparseable argument text as malformed when a schema is registered', () => {
    const diagnosis = diagnose({ tool: 'factorial', arguments: '{"n": ', error: failed('Tool execution failed'), schema: factorialSchema });
    expect(diagnosis).toMatchObject({ category: 'argument_mismatch', subtype: 'malformed_arguments', evidence: 'schema' });
  });

  it.each([
    ['n must be <= 20', 'out_of_range', 'above_maximum'],
    ['factorial overflow for n > 20', 'overflow', null],
    ['n must be <= 20 to avoid overflow', 'out_of_range', 'above_maximum'],
    ['ArithmeticException: integer overflow', 'overflow', null],
    ['Error: get_wether is not a valid tool, try one of [get_weather].', 'unknown_tool', null],
    ['MCP error -32602: Tool get_wether not found', 'unknown_tool', null],
    ['RuntimeError: backend failed: ReadTimeout while calling search', 'timeout', null],
    ['Request failed with status code 503', 'runtime_error', null],
    ['Tool execution failed', 'unknown', null],
  ] as const)('categorizes %j as %s/%s', (message, category, subtype) => {
    const diagnosis = diagnose({ tool: 'factorial', arguments: { n: 25 }, error: failed(message) });
    expect([diagnosis.category, diagnosis.subtype]).toEqual([category, subtype]);
  });

  it('unwraps a LangGraph invocation error and reads the pydantic loc line and printed kwargs', () => {
    const message =
      "Error invoking tool 'factorial' with kwargs {'n': 25} with error:\n n: Input should be less than or equal to 20\n Please fix the error and try again.";
    const diagnosis = diagnose({ tool: 'factorial', arguments: undefined, error: failed(message) });
    expect(diagnosis).toMatchObject({ category: 'out_of_range', subtype: 'above_maximum', argumentPath: '/n', offendingValue: 25 });
  });

  it.each([
    ['Error: 1 validation error for square\nn\n  Field required [type=missing]\n \n\t\n Please fix your mistakes.', '/n'],
    ["Error invoking tool 'square' with kwargs {} with error:\n n: Field required\n\n\n Please fix the error and try again  ", '/n'],
  ])('peels a closing LangGraph sentence after blank lines: %j', (message, argumentPath) => {
    const diagnosis = diagnose({ tool: 'square', arguments: {}, error: failed(message) });
    expect(diagnosis).toMatchObject({ category: 'argument_mismatch', subtype: 'missing_argument', argumentPath });
  });

  it('names the parameter of a .NET ArgumentNullException as the missing argument', () => {
    const diagnosis = diagnose({
      tool: 'send',
      arguments: {},
      error: failed("Value cannot be null. (Parameter 'recipient')", 'ArgumentNullException'),
    });
    expect(diagnosis).toMatchObject({ subtype: 'missing_argument', argumentPath: '/recipient' });
  });

  it('reports the unexpected keyword argument as the wrong argument', () => {
    const diagnosis = diagnose({
      tool: 'square',
      arguments: { numbers: [1, 2] },
      error: failed("square() got an unexpected keyword argument 'numbers'", 'TypeError'),
    });
    expect(diagnosis).toMatchObject({ subtype: 'unknown_argument', wrongArgument: 'numbers', argumentPath: '/numbers' });
  });

  it.each([
    ['a null input', null],
    ['a number as input', 42],
    ['an error without a message', { tool: 'x', arguments: {}, error: {} }],
    ['a non-string message', { tool: 'x', arguments: {}, error: { message: { nested: [1, 2] } } }],
    ['a huge message', { tool: 'x', arguments: {}, error: { message: 'a'.repeat(2_000_000) } }],
    ['a backtracking bait', { tool: 'x', arguments: {}, error: { message: `${'must be '.repeat(20_000)}!` } }],
    [
      'a schema whose validate throws',
      {
        tool: 'x',
        arguments: {},
        error: { message: 'x' },
        schema: {
          json: {},
          validate: () => {
            throw new Error('boom');
          },
        },
      },
    ],
  ])('never throws on %s', (_label, input) => {
    const started = Date.now();
    expect(() => diagnose(input as unknown as DiagnosisInput)).not.toThrow();
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('a schema too expensive to check', () => {
  const tooExpensive = {
    json: { type: 'object', properties: { n: { type: 'integer' } } },
    validate: () => ({ status: 'too_expensive' }) as const,
  };

  it('leaves the category to the message and records why the schema did not decide', () => {
    const diagnosis = diagnose({
      tool: 'square',
      arguments: { numbers: [1] },
      error: { type: 'TypeError', message: "square() got an unexpected keyword argument 'numbers'" },
      schema: tooExpensive,
    });
    expect(diagnosis).toMatchObject({ category: 'argument_mismatch', subtype: 'unknown_argument', evidence: 'schema_too_expensive' });
  });

  it('is still recorded when the message tells nothing either', () => {
    const diagnosis = diagnose({ tool: 'square', arguments: { n: 1 }, error: { message: 'it broke' }, schema: tooExpensive });
    expect(diagnosis).toMatchObject({ category: 'unknown', evidence: 'schema_too_expensive' });
  });
});
