import Ajv from 'ajv';
import { breakDownEffect, MAX_BREAKDOWN_VALUES, ValueCounts } from './effect-breakdown';
import { EFFECT_BREAKDOWN_SCHEMA } from './effect-breakdown.schemas';

const DAY = new Date('2026-06-10T00:00:00Z');

/** One value's counts: `v1` and `v2` as [calls, mistakes] of description versions 1 and 2 on one day. */
function valueOf(dimension: 'model' | 'framework', value: string, v1: [number, number], v2: [number, number]): ValueCounts {
  return {
    dimension,
    value,
    calls: [
      { day: DAY, version: 1, count: v1[0] },
      { day: DAY, version: 2, count: v2[0] },
    ],
    mistakes: [
      { day: DAY, version: 1, count: v1[1] },
      { day: DAY, version: 2, count: v2[1] },
    ],
  };
}

/** Version 2 carries the warning. */
const byVersion = (value: ValueCounts) => {
  const side = (version: number) => ({
    calls: value.calls.filter((row) => row.version === version).reduce((n, row) => n + row.count, 0),
    mistakes: value.mistakes.filter((row) => row.version === version).reduce((n, row) => n + row.count, 0),
  });
  return { withWarning: side(2), withoutWarning: side(1) };
};

describe('breakDownEffect', () => {
  it('judges each model on its own calls: helped for one, worse for another, and says the dimension is divided', () => {
    const breakdown = breakDownEffect(
      [
        valueOf('model', 'model-a', [100, 40], [100, 5]),
        valueOf('model', 'model-b', [100, 5], [100, 40]),
        valueOf('framework', 'langchain', [200, 45], [200, 45]),
      ],
      byVersion,
    );
    expect(breakdown.model.map((each) => [each.value, each.verdict])).toEqual([
      ['model-a', 'helped'],
      ['model-b', 'worse'],
    ]);
    expect(breakdown.framework.map((each) => [each.value, each.verdict])).toEqual([['langchain', 'no_effect']]);
    expect(breakdown.model[0].withWarning).toMatchObject({ calls: 100, mistakes: 5, rate: 0.05 });
    expect(breakdown.isDivided).toBe(true);
  });

  it('leaves out values under 30 calls on either side and counts them as omitted', () => {
    const breakdown = breakDownEffect(
      [valueOf('model', 'big', [30, 10], [30, 1]), valueOf('model', 'small', [29, 10], [500, 1])],
      byVersion,
    );
    expect(breakdown.minCallsPerSide).toBe(30);
    expect(breakdown.model.map((each) => each.value)).toEqual(['big']);
    expect(breakdown.omitted).toEqual({ model: 1, framework: 0 });
    expect(breakdown.isDivided).toBe(false);
  });

  it(`lists at most ${MAX_BREAKDOWN_VALUES} values per dimension, those with the most calls first`, () => {
    const values = Array.from({ length: 13 }, (_, i) => valueOf('framework', `f-${i}`, [40 + i, 10], [40 + i, 10]));
    const breakdown = breakDownEffect(values, byVersion);
    expect(breakdown.framework.map((each) => each.value)).toEqual(Array.from({ length: 10 }, (_, i) => `f-${12 - i}`));
    expect(breakdown.omitted.framework).toBe(3);
  });

  it('gives an empty breakdown without counts, and every breakdown matches the schema the routes document', () => {
    // a strict Ajv of its own: the pure core imports nothing of ours, not even the app's Ajv factory
    const validate = new Ajv({ allErrors: true, strict: true }).compile(EFFECT_BREAKDOWN_SCHEMA);
    const empty = breakDownEffect([], byVersion);
    expect(empty).toEqual({ minCallsPerSide: 30, model: [], framework: [], omitted: { model: 0, framework: 0 }, isDivided: false });
    const full = breakDownEffect(
      [valueOf('model', 'model-a', [100, 40], [100, 5]), valueOf('framework', 'ai-sdk', [50, 0], [50, 0])],
      byVersion,
    );
    for (const breakdown of [empty, full, null]) expect([validate(breakdown), validate.errors]).toEqual([true, null]);
    expect(validate({ ...full, model: [{ ...full.model[0], verdict: 'great' }] })).toBe(false);
  });
});
