import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import { compileArgumentSchema } from './argument-schema';
import { diagnose } from './categorizer';
import type { Diagnosis, DiagnosisInput } from './diagnosis.types';

// The categorizer scored on real library messages (test/fixtures/categorizer) and on generated parts with a held-out
// third; the report prints on every run.

interface Fixture {
  id: string;
  source: string;
  /** One library, runtime, serializer, framework or provider client (test/fixtures/categorizer/gen/family.mjs). */
  family: string;
  tool: string;
  arguments: unknown;
  error: { type: string | null; message: string };
  schema?: Record<string, unknown>;
  expected: Partial<Diagnosis> & Pick<Diagnosis, 'category' | 'subtype'>;
}

const FIXTURES_DIR = join(__dirname, '../../test/fixtures/categorizer');
const EXTRACTED_FIELDS = ['argumentPath', 'wrongArgument', 'intendedArgument', 'offendingValue', 'arrayForScalar'] as const;

function readJsonLines(path: string): Fixture[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Fixture);
}

/** The generated parts (test/fixtures/categorizer/gen/README.md): tuning parts, or their held-out twins. */
function loadGeneratedParts(isHeldOut: boolean): Fixture[] {
  const partsDir = join(FIXTURES_DIR, 'parts');
  return readdirSync(partsDir)
    .filter((name) => /^(?:gen-.+|frameworks)\.jsonl$/.test(name.replace(/^heldout-/, '')))
    .filter((name) => name.startsWith('heldout-') === isHeldOut)
    .sort()
    .flatMap((name) => readJsonLines(join(partsDir, name)));
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

interface LabelPair {
  expected: string;
  actual: string;
  /** How much the pair counts; 1 unless a family's pairs share one family's weight. */
  weight?: number;
}

function tallyBy(pairs: readonly LabelPair[]): Map<string, Tally> {
  const tallies = new Map<string, Tally>();
  const tallyOf = (label: string): Tally => {
    const existing = tallies.get(label) ?? { truePositives: 0, falsePositives: 0, falseNegatives: 0 };
    tallies.set(label, existing);
    return existing;
  };
  for (const { expected, actual, weight = 1 } of pairs) {
    if (expected === actual) {
      tallyOf(expected).truePositives += weight;
    } else {
      tallyOf(expected).falseNegatives += weight;
      tallyOf(actual).falsePositives += weight;
    }
  }
  return tallies;
}

/** Mean F1 over the labels that occur as expected labels (a label only ever predicted counts through precision). */
function macroF1(tallies: Map<string, Tally>): number {
  const scores = [...tallies.values()]
    .filter((tally) => tally.truePositives + tally.falseNegatives > 0)
    .map((tally) => (2 * tally.truePositives) / (2 * tally.truePositives + tally.falsePositives + tally.falseNegatives));
  return scores.reduce((sum, score) => sum + score, 0) / Math.max(1, scores.length);
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

/** Rows are expected categories, columns predicted ones (abbreviated to their first letters). */
function formatConfusion(pairs: readonly LabelPair[]): string {
  const labels = [...new Set(pairs.flatMap((pair) => [pair.expected, pair.actual]))].sort();
  const short = (label: string): string =>
    label
      .split('_')
      .map((word) => word.slice(0, 3))
      .join('_')
      .padStart(8);
  const lines = [`${'expected \\ predicted'.padEnd(20)}${labels.map(short).join('')}`];
  for (const expected of labels) {
    const counts = labels.map((actual) =>
      String(pairs.filter((pair) => pair.expected === expected && pair.actual === actual).length).padStart(8),
    );
    lines.push(`${expected.padEnd(20)}${counts.join('')}`);
  }
  return lines.join('\n');
}

interface Result {
  fixture: Fixture;
  actual: Diagnosis;
}

interface Score {
  results: Result[];
  size: number;
  categoryAccuracy: number;
  subtypeAccuracy: number;
  categoryMacroF1: number;
  extractionAccuracy: number;
  report: string;
}

/** Scores one set of fixtures; a held-out set prints its totals only, so no rule is ever written from its misses. */
function scoreFixtures(title: string, fixtures: readonly Fixture[], isHeldOut: boolean): Score {
  const results: Result[] = fixtures.map((fixture) => ({ fixture, actual: diagnose(toInput(fixture)) }));
  const categoryPairs = results.map(({ fixture, actual }) => ({ expected: fixture.expected.category, actual: actual.category }));
  const subtypePairs = results.map(({ fixture, actual }) => ({
    expected: `${fixture.expected.category}/${fixture.expected.subtype ?? '-'}`,
    actual: `${actual.category}/${actual.subtype ?? '-'}`,
  }));
  const size = Math.max(1, fixtures.length);
  const categoryAccuracy = categoryPairs.filter((pair) => pair.expected === pair.actual).length / size;
  const subtypeAccuracy = subtypePairs.filter((pair) => pair.expected === pair.actual).length / size;
  const categoryTallies = tallyBy(categoryPairs);
  const categoryMacroF1 = macroF1(categoryTallies);

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

  const bySource = new Map<string, number>();
  for (const fixture of fixtures) bySource.set(fixture.source, (bySource.get(fixture.source) ?? 0) + 1);
  const misses = results
    .filter(({ fixture, actual }) => fixture.expected.category !== actual.category || fixture.expected.subtype !== actual.subtype)
    .map(
      ({ fixture, actual }) =>
        `  ${fixture.id}: expected ${fixture.expected.category}/${fixture.expected.subtype} got ${actual.category}/${actual.subtype}`,
    );
  const lines = [
    `=== ${title}: ${fixtures.length} fixtures`,
    `by source: ${[...bySource.entries()].map(([source, count]) => `${source}=${count}`).join(', ')}`,
    '',
    formatTable('category', categoryTallies),
    '',
    formatTable('category/subtype', tallyBy(subtypePairs)),
    '',
    formatConfusion(categoryPairs),
    '',
    `category accuracy ${categoryAccuracy.toFixed(3)}, category macro-F1 ${categoryMacroF1.toFixed(3)}, ` +
      `subtype accuracy ${subtypeAccuracy.toFixed(3)}, extraction accuracy ${extractionAccuracy.toFixed(3)} ` +
      `(${extractionChecks.length - extractionMismatches.length}/${extractionChecks.length})`,
  ];
  if (isHeldOut) {
    lines.push(`misclassified: ${misses.length}, extraction mismatches: ${extractionMismatches.length} (held out: not listed)`);
  } else {
    lines.push(
      `misclassified (${misses.length}):`,
      ...misses,
      `extraction mismatches (${extractionMismatches.length}):`,
      ...extractionMismatches.map(
        (check) => `  ${check.id}.${check.field}: expected ${String(check.expected)} got ${String(check.actual)}`,
      ),
    );
  }
  return {
    results,
    size: fixtures.length,
    categoryAccuracy,
    subtypeAccuracy,
    categoryMacroF1,
    extractionAccuracy,
    report: lines.join('\n'),
  };
}

const isRight = ({ fixture, actual }: Result): boolean => fixture.expected.category === actual.category;
const isRightWithSubtype = (result: Result): boolean => isRight(result) && result.fixture.expected.subtype === result.actual.subtype;

interface FamilyScore {
  families: number;
  familiesWithEight: number;
  categoryMacroF1: number;
  subtypeAccuracy: number;
  report: string;
}

/**
 * Scores each source family apart, the way a wording never seen is met. The rules are not trained, so leaving one
 * family out changes nothing: a family's leave-one-out score is its score. Totals weigh every family alike (each
 * fixture counts 1/size of its family), so the big validator families do not hide a small family's misses. Only
 * totals per family are printed: the held-out split's misses stay unread.
 */
function scoreByFamily(results: readonly Result[]): FamilyScore {
  const byFamily = new Map<string, Result[]>();
  for (const result of results) byFamily.set(result.fixture.family, [...(byFamily.get(result.fixture.family) ?? []), result]);
  const weightOf = (result: Result): number => 1 / (byFamily.get(result.fixture.family)?.length ?? 1);
  const categoryPairs = results.map((result) => ({
    expected: result.fixture.expected.category,
    actual: result.actual.category,
    weight: weightOf(result),
  }));
  const categoryMacroF1 = macroF1(tallyBy(categoryPairs));
  const subtypeAccuracy =
    [...byFamily.values()].reduce((sum, members) => sum + members.filter(isRightWithSubtype).length / members.length, 0) /
    Math.max(1, byFamily.size);
  const lines = [`${'family'.padEnd(36)} fixtures  category  subtype`];
  for (const [family, members] of [...byFamily.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const share = (count: number): string => (count / members.length).toFixed(3).padStart(8);
    lines.push(
      `${family.padEnd(36)} ${String(members.length).padStart(8)}  ${share(members.filter(isRight).length)} ${share(members.filter(isRightWithSubtype).length)}`,
    );
  }
  const familiesWithEight = [...byFamily.values()].filter((members) => members.length >= 8).length;
  lines.push(
    `leave-one-family-out (rules alone): ${byFamily.size} families (${familiesWithEight} with >= 8 fixtures), ` +
      `family-weighted category macro-F1 ${categoryMacroF1.toFixed(3)}, mean subtype accuracy per family ${subtypeAccuracy.toFixed(3)}`,
  );
  return { families: byFamily.size, familiesWithEight, categoryMacroF1, subtypeAccuracy, report: lines.join('\n') };
}

describe('diagnose on the fixture corpus of real library messages', () => {
  const corpus = readJsonLines(join(FIXTURES_DIR, 'corpus.jsonl'));
  const main = scoreFixtures('corpus.jsonl', corpus, false);
  const generated = scoreFixtures('generated parts (tuning)', loadGeneratedParts(false), false);
  const heldOut = scoreFixtures('generated parts (held out)', loadGeneratedParts(true), true);

  const allResults = [...main.results, ...generated.results, ...heldOut.results];
  const byFamily = scoreByFamily(allResults);

  beforeAll(() => {
    console.log([main.report, generated.report, heldOut.report, `=== by family (all sets)\n${byFamily.report}`].join('\n\n'));
  });

  it('names the source family of every fixture', () => {
    const unnamed = allResults.filter(({ fixture }) => !/^[a-z]{2,12}:[\w.-]{1,60}$/.test(fixture.family ?? ''));
    expect(unnamed.map(({ fixture }) => fixture.id)).toEqual([]);
  });

  it('covers at least 40 families of at least 8 fixtures each', () => {
    expect(byFamily.familiesWithEight).toBeGreaterThanOrEqual(40);
  });

  // Floors a little under today's (0.980 family-weighted macro-F1, 0.982 mean subtype accuracy per family).
  it('scores every family alike at macro-F1 >= 0.96 and mean subtype accuracy >= 0.96 (rules alone)', () => {
    expect(byFamily.categoryMacroF1).toBeGreaterThanOrEqual(0.96);
    expect(byFamily.subtypeAccuracy).toBeGreaterThanOrEqual(0.96);
  });

  it('has a corpus covering every category', () => {
    const categories = new Set(corpus.map((fixture) => fixture.expected.category));
    expect([...categories].sort()).toEqual(
      ['argument_mismatch', 'out_of_range', 'overflow', 'runtime_error', 'timeout', 'unknown', 'unknown_tool'].sort(),
    );
    expect(corpus.length).toBeGreaterThanOrEqual(250);
  });

  it('gets the category right for at least 90% of fixtures', () => {
    expect(main.categoryAccuracy).toBeGreaterThanOrEqual(0.9);
  });

  it('gets category and subtype right for at least 85% of fixtures', () => {
    expect(main.subtypeAccuracy).toBeGreaterThanOrEqual(0.85);
  });

  it('extracts the stated argumentPath, names, value and arrayForScalar for at least 90% of checks', () => {
    expect(main.extractionAccuracy).toBeGreaterThanOrEqual(0.9);
  });

  it('keeps a held-out third of at least 1,500 generated fixtures', () => {
    expect(heldOut.size + generated.size).toBeGreaterThanOrEqual(1500);
    expect(heldOut.size).toBeGreaterThanOrEqual(0.25 * (heldOut.size + generated.size));
  });

  // Floors a little under today's scores (tuning 0.996 macro-F1 / 0.978 subtype, held out 0.984 / 0.967, with the
  // families of issue 38 added), to catch regressions, not to tune to.
  it('scores the generated parts at category macro-F1 >= 0.98 (tuning) and >= 0.96 (held out)', () => {
    expect(generated.categoryMacroF1).toBeGreaterThanOrEqual(0.98);
    expect(heldOut.categoryMacroF1).toBeGreaterThanOrEqual(0.96);
  });

  it('gets category and subtype right for >= 0.97 (tuning) and >= 0.95 (held out) of the generated parts', () => {
    expect(generated.subtypeAccuracy).toBeGreaterThanOrEqual(0.97);
    expect(heldOut.subtypeAccuracy).toBeGreaterThanOrEqual(0.95);
  });
});
