import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import { compileArgumentSchema } from './argument-schema';
import { diagnose } from './categorizer';
import type { Diagnosis, DiagnosisInput } from './diagnosis.types';
import { familyOf } from './fallback/family';
import { type FallbackModel, loadFallbackModel } from './fallback/linear-model';
import { isHeldOutPart, isTuningPart, serializeWeights, trainFallbackModels } from './fallback/training';

// The categorizer scored on real library messages (test/fixtures/categorizer) and on generated parts with a held-out
// third, and each family of the generated parts scored by the rules and a fallback model trained without it
// (leave-one-family-out); the report prints on every run.

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
    .filter(isHeldOut ? isHeldOutPart : isTuningPart)
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
  /** How much the pair counts (1 unless a total weighs each family alike). */
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
  /** Per category: the share of its predictions that were right (undefined when it was never predicted). */
  precision: Map<string, number | undefined>;
  /** Per category: the share of its fixtures predicted as it (undefined when no fixture expects it). */
  recall: Map<string, number | undefined>;
  /** Per category: how many fixtures expect it. */
  support: Map<string, number>;
  report: string;
}

/**
 * Scores one set of fixtures; a held-out set prints its totals only, so no rule is ever written from its misses.
 * `modelOf`: the fallback model each fixture is diagnosed with (by default the shipped one).
 */
function scoreFixtures(
  title: string,
  fixtures: readonly Fixture[],
  isHeldOut: boolean,
  modelOf?: (fixture: Fixture) => FallbackModel | null,
): Score {
  const results: Result[] = fixtures.map((fixture) => ({ fixture, actual: diagnose(toInput(fixture), modelOf?.(fixture)) }));
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
  const precision = new Map(
    [...categoryTallies].map(([label, tally]) => {
      const predicted = tally.truePositives + tally.falsePositives;
      return [label, predicted === 0 ? undefined : tally.truePositives / predicted];
    }),
  );
  const recall = new Map(
    [...categoryTallies].map(([label, tally]) => {
      const expected = tally.truePositives + tally.falseNegatives;
      return [label, expected === 0 ? undefined : tally.truePositives / expected];
    }),
  );
  const support = new Map([...categoryTallies].map(([label, tally]) => [label, tally.truePositives + tally.falseNegatives]));
  return {
    results,
    size: fixtures.length,
    categoryAccuracy,
    subtypeAccuracy,
    categoryMacroF1,
    extractionAccuracy,
    precision,
    recall,
    support,
    report: lines.join('\n'),
  };
}

const isRight = ({ fixture, actual }: Result): boolean => fixture.expected.category === actual.category;
const isRightWithSubtype = (result: Result): boolean => isRight(result) && result.fixture.expected.subtype === result.actual.subtype;

interface FamilyScores {
  families: number;
  familiesWithEight: number;
  /** Every fixture counted once. */
  pooled: Score;
  /** Every family counted alike (each fixture 1/size of its family), so big validator families hide no small one. */
  familyWeightedMacroF1: number;
  meanFamilySubtypeAccuracy: number;
  report: string;
}

/**
 * Leave-one-family-out: every family of the hand corpus and the generated parts (tuning and held-out fixtures)
 * diagnosed by the rules and the fallback model trained on the other families' tuning fixtures. Totals only: a family
 * is unseen data. (The rules were written from every family's tuning fixtures; only the model's part is truly unseen.)
 */
function scoreByFamily(fixtures: readonly Fixture[], withoutFamily: Map<string, FallbackModel>, shipped: FallbackModel): FamilyScores {
  const modelOf = (fixture: Fixture): FallbackModel => withoutFamily.get(familyOf(fixture)) ?? shipped;
  const pooled = scoreFixtures('leave-one-family-out, every family pooled', fixtures, true, modelOf);
  const byFamily = new Map<string, Result[]>();
  for (const result of pooled.results) {
    const family = familyOf(result.fixture);
    byFamily.set(family, [...(byFamily.get(family) ?? []), result]);
  }
  const families = [...byFamily.entries()].sort(([a], [b]) => a.localeCompare(b));
  const weightOf = (result: Result): number => 1 / (byFamily.get(familyOf(result.fixture))?.length ?? 1);
  const familyWeightedMacroF1 = macroF1(
    tallyBy(
      pooled.results.map((result) => ({
        expected: result.fixture.expected.category,
        actual: result.actual.category,
        weight: weightOf(result),
      })),
    ),
  );
  const meanFamilySubtypeAccuracy =
    families.reduce((sum, [, members]) => sum + members.filter(isRightWithSubtype).length / members.length, 0) /
    Math.max(1, families.length);
  const familiesWithEight = families.filter(([, members]) => members.length >= 8).length;
  const share = (count: number, of: number): string => (count / of).toFixed(3).padStart(8);
  const report = [
    `=== leave-one-family-out: ${families.length} families, ${familiesWithEight} with >= 8 fixtures (rules + a fallback model trained without the family)`,
    `${'family'.padEnd(40)} ${'size'.padStart(5)}  category  subtype`,
    ...families.map(
      ([family, members]) =>
        `${family.padEnd(40)} ${String(members.length).padStart(5)}  ${share(members.filter(isRight).length, members.length)} ${share(members.filter(isRightWithSubtype).length, members.length)}`,
    ),
    '',
    pooled.report,
    `every family alike: category macro-F1 ${familyWeightedMacroF1.toFixed(3)}, mean subtype accuracy per family ${meanFamilySubtypeAccuracy.toFixed(3)}`,
  ].join('\n');
  return { families: families.length, familiesWithEight, pooled, familyWeightedMacroF1, meanFamilySubtypeAccuracy, report };
}

describe('diagnose on the fixture corpus of real library messages', () => {
  const corpus = readJsonLines(join(FIXTURES_DIR, 'corpus.jsonl'));
  const tuningFixtures = loadGeneratedParts(false);
  const heldOutFixtures = loadGeneratedParts(true);
  const main = scoreFixtures('corpus.jsonl', corpus, false);
  const generated = scoreFixtures('generated parts (tuning)', tuningFixtures, false);
  const heldOut = scoreFixtures('generated parts (held out)', heldOutFixtures, true);
  const rulesOnly = scoreFixtures('generated parts (held out), rules only', heldOutFixtures, true, () => null);
  const trained = trainFallbackModels(tuningFixtures);
  const byFamily = scoreByFamily(
    [...corpus, ...tuningFixtures, ...heldOutFixtures],
    new Map([...trained.withoutFamily].map(([family, weights]) => [family, loadFallbackModel(weights)])),
    loadFallbackModel(trained.weights),
  );

  const formatShare = (share: number | undefined): string => (share === undefined ? '-' : share.toFixed(3));
  const unknownReport =
    `=== unknown on the held-out split (${heldOut.support.get('unknown') ?? 0} fixtures expect it): ` +
    `precision ${formatShare(heldOut.precision.get('unknown'))}, recall ${formatShare(heldOut.recall.get('unknown'))}; ` +
    `rules only: precision ${formatShare(rulesOnly.precision.get('unknown'))}, recall ${formatShare(rulesOnly.recall.get('unknown'))}`;

  beforeAll(() => {
    console.log([main.report, generated.report, heldOut.report, rulesOnly.report, byFamily.report, unknownReport].join('\n\n'));
  });

  it('ships the fallback weights that training on the tuning parts writes, byte for byte', () => {
    const committed = readFileSync(join(__dirname, 'fallback/weights.v1.json'), 'utf8');
    expect(serializeWeights(trained.weights) === committed).toBe(true);
  });

  it("lowers no category's precision on the held-out split with the fallback model, and leaves the hand corpus unchanged", () => {
    for (const [category, precision] of rulesOnly.precision) {
      if (category !== 'unknown' && precision !== undefined) expect(heldOut.precision.get(category) ?? 0).toBeGreaterThanOrEqual(precision);
    }
    const corpusRulesOnly = scoreFixtures('corpus.jsonl, rules only', corpus, false, () => null);
    expect([main.categoryMacroF1, main.subtypeAccuracy]).toEqual([corpusRulesOnly.categoryMacroF1, corpusRulesOnly.subtypeAccuracy]);
  });

  it('names the source family of every fixture', () => {
    const unnamed = byFamily.pooled.results.filter(({ fixture }) => !/^[a-z]{2,12}:[\w.-]{1,60}$/.test(fixture.family ?? ''));
    expect(unnamed.map(({ fixture }) => fixture.id)).toEqual([]);
  });

  // A diagnosis of `unknown` must mean the failure said nothing: other categories' wordings falling through to it are
  // the dead end it is measured against (the opaque failures of gen/gen-opaque.* make its precision measurable).
  it('keeps unknown precision >= 0.90 on the held-out split, over at least 30 fixtures that expect unknown', () => {
    expect(heldOut.support.get('unknown') ?? 0).toBeGreaterThanOrEqual(30);
    expect(heldOut.precision.get('unknown') ?? 0).toBeGreaterThanOrEqual(0.9);
  });

  it('covers at least 40 families of at least 8 fixtures each', () => {
    expect(byFamily.familiesWithEight).toBeGreaterThanOrEqual(40);
  });

  it('scores each family it has not trained on: leave-one-family-out macro-F1 >= 0.93, subtype >= 0.88, pooled and every family alike', () => {
    expect(byFamily.pooled.categoryMacroF1).toBeGreaterThanOrEqual(0.93);
    expect(byFamily.pooled.subtypeAccuracy).toBeGreaterThanOrEqual(0.88);
    expect(byFamily.familyWeightedMacroF1).toBeGreaterThanOrEqual(0.93);
    expect(byFamily.meanFamilySubtypeAccuracy).toBeGreaterThanOrEqual(0.88);
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

  // Floors a little under today's scores (tuning 1.000 macro-F1 / 0.992 subtype, held out 0.982 / 0.972), to catch
  // regressions, not to tune to.
  it('scores the generated parts at category macro-F1 >= 0.98 (tuning) and >= 0.96 (held out)', () => {
    expect(generated.categoryMacroF1).toBeGreaterThanOrEqual(0.98);
    expect(heldOut.categoryMacroF1).toBeGreaterThanOrEqual(0.96);
  });

  it('gets category and subtype right for >= 0.97 (tuning) and >= 0.95 (held out) of the generated parts', () => {
    expect(generated.subtypeAccuracy).toBeGreaterThanOrEqual(0.97);
    expect(heldOut.subtypeAccuracy).toBeGreaterThanOrEqual(0.95);
  });
});
