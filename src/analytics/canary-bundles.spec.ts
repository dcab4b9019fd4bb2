import { CanaryBundles, matchOf, mistakesOverlap, orderForRollout, restatedWarning } from './canary-bundles';
import type { StoredRecommendation } from './recommendation.repository';
import type { MistakeMatch } from './recommendation-drafts';
import { targetedMistakes } from './schema-quality-rules';

const argument = (subtype: string, path: string): MistakeMatch => ({
  categories: ['argument_mismatch'],
  subtypes: [subtype],
  argumentPaths: [path],
});
const MALFORMED = argument('malformed_arguments', '');
const WRONG_NAME = argument('unknown_argument', '/numbers');
const WRONG_TYPE = argument('type_mismatch', '/number');
const OVERFLOW: MistakeMatch = { categories: ['overflow'], subtypes: [''], argumentPaths: ['/n'] };
const MISNAMED = (calledTool: string): MistakeMatch => ({ categories: ['unknown_tool'], subtypes: [''], argumentPaths: [''], calledTool });
/** The no-example finding's line: any wrong argument of the tool. */
const EXAMPLE_LINE = targetedMistakes({ kind: 'no_usage_example', path: '/description' });
/** The one-integer-a-call finding's line: 'number' or 'numbers' sent as a list, under either name, or not at all. */
const ONE_PER_CALL = targetedMistakes({ kind: 'batchable_single_value', path: '/parameters/properties/number' });

let ids = 0;
function recommendation(kind: string, count: number, match: MistakeMatch | null, tool = 'prime'): StoredRecommendation {
  ids += 1;
  return {
    id: `r${ids}`,
    tool,
    kind,
    evidenceKey: `${kind}:${ids}`,
    text: `${kind} ${ids}`,
    evidence: { count, ...(match ? { match } : {}) },
    confidence: 0.9,
    status: 'proposed',
    warningId: null,
    appliedVersion: null,
    appliedAt: null,
    effect: null,
    approvedAt: null,
  };
}

describe('mistakesOverlap', () => {
  it.each<[string, MistakeMatch, MistakeMatch]>([
    ['a wrong name and a wrong type of other arguments', WRONG_NAME, WRONG_TYPE],
    ['malformed JSON and a wrong name', MALFORMED, WRONG_NAME],
    ['an argument mistake and an overflow', WRONG_NAME, OVERFLOW],
    ['calls to two different misspelled names', MISNAMED('prime_factorise'), MISNAMED('prime_factorize')],
    ["a misspelled tool name and the tool's own argument mistake", MISNAMED('prime_factorise'), WRONG_NAME],
    ['the same subtype at two different arguments', argument('type_mismatch', '/a'), argument('type_mismatch', '/b')],
  ])('keeps apart %s', (_, a, b) => {
    expect(mistakesOverlap(a, b)).toBe(false);
    expect(mistakesOverlap(b, a)).toBe(false);
  });

  it.each<[string, MistakeMatch, MistakeMatch]>([
    ['the same mistake', WRONG_TYPE, { ...WRONG_TYPE }],
    ['calls to the same misspelled name', MISNAMED('prime_factorise'), MISNAMED('prime_factorise')],
    ['an any-argument line and malformed JSON', EXAMPLE_LINE, MALFORMED],
    ['an any-argument line and a wrong name', EXAMPLE_LINE, WRONG_NAME],
    ['the one-per-call line and the wrong name it targets', ONE_PER_CALL, WRONG_NAME],
    ['two definition lines about wrong arguments', EXAMPLE_LINE, ONE_PER_CALL],
    [
      'matches sharing one of several subtypes and paths',
      argument('type_mismatch', '/a'),
      {
        categories: ['argument_mismatch', 'out_of_range'],
        subtypes: ['missing_argument', 'type_mismatch'],
        argumentPaths: ['/b', '/a'],
      },
    ],
  ])('sees an overlap in %s', (_, a, b) => {
    expect(mistakesOverlap(a, b)).toBe(true);
    expect(mistakesOverlap(b, a)).toBe(true);
  });

  it("counts a warning without a match as overlapping everything: its effect could be anyone's", () => {
    expect(mistakesOverlap(null, WRONG_NAME)).toBe(true);
    expect(mistakesOverlap(OVERFLOW, null)).toBe(true);
    expect(mistakesOverlap(null, null)).toBe(true);
  });

  it('keeps the one-per-call line apart from a mistake at another argument, or malformed JSON', () => {
    expect(mistakesOverlap(ONE_PER_CALL, argument('type_mismatch', '/limit'))).toBe(false);
    expect(mistakesOverlap(ONE_PER_CALL, MALFORMED)).toBe(false);
  });
});

describe('orderForRollout', () => {
  it('puts the warnings backed by the most mistakes first and definition findings (no occurrences) last', () => {
    const example = recommendation('schema_quality', 0, EXAMPLE_LINE);
    const few = recommendation('type_mismatch', 6, WRONG_TYPE);
    const many = recommendation('malformed_arguments', 20, MALFORMED);
    const misnamed = recommendation('misnamed_tool', 12, MISNAMED('prime_factorise'));
    expect(orderForRollout([example, few, many, misnamed]).map((r) => r.id)).toEqual([many.id, misnamed.id, few.id, example.id]);
  });

  it('puts a definition finding after a learned warning even when its stored count is not 0', () => {
    const example = { ...recommendation('schema_quality', 0, EXAMPLE_LINE), evidence: { count: 50, match: EXAMPLE_LINE } };
    const learned = recommendation('wrong_argument_name', 5, WRONG_NAME);
    expect(orderForRollout([example, learned]).map((r) => r.kind)).toEqual(['wrong_argument_name', 'schema_quality']);
  });

  it('keeps the given order among equals, and leaves its input as it was', () => {
    const input = [recommendation('schema_quality', 0, EXAMPLE_LINE), recommendation('schema_quality', 0, ONE_PER_CALL)];
    const before = input.map((r) => r.id);
    expect(orderForRollout(input).map((r) => r.id)).toEqual(before);
    expect(input.map((r) => r.id)).toEqual(before);
  });
});

describe('CanaryBundles', () => {
  /** What the nightly does: the recommendations it admits, in rollout order, each added once applied. */
  function admitAll(bundles: CanaryBundles, recommendations: StoredRecommendation[], isCanary = true): string[] {
    const admitted: string[] = [];
    for (const each of orderForRollout(recommendations)) {
      if (!bundles.admits(each, isCanary)) continue;
      admitted.push(each.text);
      if (isCanary) bundles.add(each);
    }
    return admitted;
  }

  it("gives a tool's canary to the warning backed by mistakes, not to the definition line with none (finding 3)", () => {
    const example = recommendation('schema_quality', 0, EXAMPLE_LINE, 'gcd');
    const malformed = recommendation('malformed_arguments', 20, MALFORMED, 'gcd');
    expect(admitAll(new CanaryBundles(new Set()), [example, malformed])).toEqual([malformed.text]);
  });

  it('tests warnings of one tool about different mistakes in one canary, and the one about an overlapping mistake later', () => {
    const name = recommendation('wrong_argument_name', 30, WRONG_NAME);
    const type = recommendation('type_mismatch', 10, WRONG_TYPE);
    const overlapping = recommendation('type_mismatch', 8, { ...WRONG_TYPE });
    const bundles = new CanaryBundles(new Set());
    expect(admitAll(bundles, [type, overlapping, name])).toEqual([name.text, type.text]);
    expect(bundles.isStarted('prime')).toBe(true);
    expect(bundles.isStarted('factorial')).toBe(false);
  });

  it('never joins a definition line to a started canary, even one about other mistakes', () => {
    const overflow = recommendation('learned_limit', 10, OVERFLOW);
    const example = recommendation('schema_quality', 0, EXAMPLE_LINE);
    expect(admitAll(new CanaryBundles(new Set()), [overflow, example])).toEqual([overflow.text]);
  });

  it('starts one definition line at a time when a tool has several', () => {
    const example = recommendation('schema_quality', 0, EXAMPLE_LINE);
    const onePerCall = recommendation('schema_quality', 0, ONE_PER_CALL);
    expect(admitAll(new CanaryBundles(new Set()), [example, onePerCall])).toEqual([example.text]);
  });

  it('starts nothing for a tool whose canary runs from an earlier night, and a canary for each other tool', () => {
    const prime = recommendation('wrong_argument_name', 30, WRONG_NAME, 'prime');
    const factorial = recommendation('learned_limit', 10, OVERFLOW, 'factorial');
    const bundles = new CanaryBundles(new Set(['prime']));
    expect(admitAll(bundles, [prime, factorial])).toEqual([factorial.text]);
    expect(bundles.isStarted('prime')).toBe(false);
    expect(bundles.isStarted('factorial')).toBe(true);
  });

  it('does not add a definition line that restates an applied warning about the same mistakes, canary or not', () => {
    const applied = { ...recommendation('malformed_arguments', 20, MALFORMED, 'gcd'), status: 'applied', warningId: 'w1' };
    const example = recommendation('schema_quality', 0, EXAMPLE_LINE, 'gcd');
    expect(new CanaryBundles(new Set(), [applied]).admits(example, true)).toBe(false);
    expect(new CanaryBundles(new Set(), [applied]).admits(example, false)).toBe(false);
  });

  it('adds a definition line when the applied warnings are about other mistakes, of another tool, or are lines themselves', () => {
    const onePerCall = recommendation('schema_quality', 0, ONE_PER_CALL);
    const otherMistake = { ...recommendation('malformed_arguments', 20, MALFORMED), status: 'applied' };
    const otherTool = { ...recommendation('wrong_argument_name', 30, WRONG_NAME, 'factorial'), status: 'applied' };
    const line = { ...recommendation('schema_quality', 0, EXAMPLE_LINE), status: 'applied' };
    const noOccurrences = { ...recommendation('wrong_argument_name', 0, WRONG_NAME), status: 'applied' };
    expect(new CanaryBundles(new Set(), [otherMistake, otherTool, line, noOccurrences]).admits(onePerCall, true)).toBe(true);
  });

  it('without a canary (rollout off) applies every learned warning at once, overlapping or not', () => {
    const type = recommendation('type_mismatch', 10, WRONG_TYPE);
    const overlapping = recommendation('type_mismatch', 8, { ...WRONG_TYPE });
    const example = recommendation('schema_quality', 0, EXAMPLE_LINE);
    expect(admitAll(new CanaryBundles(new Set(['prime'])), [type, overlapping, example], false)).toEqual([
      type.text,
      overlapping.text,
      example.text,
    ]);
  });

  it('names the applied warning a definition line restates, and none for a learned warning', () => {
    const applied = { ...recommendation('malformed_arguments', 20, MALFORMED, 'gcd'), status: 'applied', warningId: 'w1' };
    const otherTool = { ...recommendation('malformed_arguments', 20, MALFORMED, 'lcm'), status: 'applied', warningId: 'w2' };
    expect(restatedWarning(recommendation('schema_quality', 0, EXAMPLE_LINE, 'gcd'), [otherTool, applied])).toBe(applied);
    expect(restatedWarning(recommendation('schema_quality', 0, ONE_PER_CALL, 'gcd'), [applied])).toBeNull();
    expect(restatedWarning(recommendation('type_mismatch', 8, MALFORMED, 'gcd'), [applied])).toBeNull();
  });

  it("reads a recommendation's match from its evidence, null without one", () => {
    expect(matchOf(recommendation('wrong_argument_name', 5, WRONG_NAME))).toEqual(WRONG_NAME);
    expect(matchOf(recommendation('review_description', 5, null))).toBeNull();
  });
});
