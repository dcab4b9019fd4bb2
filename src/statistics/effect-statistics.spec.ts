import { estimateEffect, splitByWarning, splitGuardOutcomes, twoProportionPValue, wilsonInterval } from './effect-statistics';

describe('wilsonInterval', () => {
  it('matches the textbook interval for 10 of 100', () => {
    const [low, high] = wilsonInterval(10, 100)!;
    expect(low).toBeCloseTo(0.0552, 3);
    expect(high).toBeCloseTo(0.1744, 3);
  });

  it('stays inside [0, 1] at the extremes and is null without trials', () => {
    expect(wilsonInterval(0, 20)![0]).toBe(0);
    expect(wilsonInterval(20, 20)![1]).toBe(1);
    expect(wilsonInterval(0, 0)).toBeNull();
  });
});

describe('twoProportionPValue', () => {
  it('is about 0.0017 for 30/100 against 12/100', () => {
    expect(twoProportionPValue({ calls: 100, mistakes: 30 }, { calls: 100, mistakes: 12 })).toBeCloseTo(0.0017, 3);
  });

  it('is 1 when both sides are identical', () => {
    expect(twoProportionPValue({ calls: 50, mistakes: 5 }, { calls: 50, mistakes: 5 })).toBeCloseTo(1, 6);
  });
});

describe('estimateEffect', () => {
  it('says helped when the mistake is significantly rarer with the warning', () => {
    const effect = estimateEffect({ calls: 200, mistakes: 4 }, { calls: 200, mistakes: 40 });
    expect(effect.verdict).toBe('helped');
    expect(effect.relativeChange).toBeCloseTo(-0.9, 5);
    expect(effect.withWarning.rate).toBeCloseTo(0.02, 5);
  });

  it('says worse when the mistake is significantly more common with the warning', () => {
    expect(estimateEffect({ calls: 200, mistakes: 50 }, { calls: 200, mistakes: 10 }).verdict).toBe('worse');
  });

  it('says no effect when the difference is within noise', () => {
    expect(estimateEffect({ calls: 300, mistakes: 30 }, { calls: 300, mistakes: 33 }).verdict).toBe('no_effect');
  });

  it('says not enough data when either side has fewer than 30 calls', () => {
    const effect = estimateEffect({ calls: 29, mistakes: 0 }, { calls: 500, mistakes: 100 });
    expect(effect.verdict).toBe('not_enough_data');
    expect(effect.withWarning.calls).toBe(29);
  });
});

describe('splitByWarning', () => {
  const day = (d: string) => new Date(`${d}T00:00:00Z`);
  const appliedAt = new Date('2026-05-10T02:00:00Z');

  it('compares by reported description version when calls report it', () => {
    const calls = [
      { day: day('2026-05-09'), version: 1, count: 100 },
      { day: day('2026-05-11'), version: 2, count: 80 },
      { day: day('2026-05-11'), version: 1, count: 20 },
      { day: day('2026-05-11'), version: 0, count: 999 },
    ];
    const mistakes = [
      { day: day('2026-05-09'), version: 1, count: 30 },
      { day: day('2026-05-11'), version: 2, count: 2 },
      { day: day('2026-05-11'), version: 1, count: 6 },
    ];
    expect(splitByWarning(calls, mistakes, { appliedVersion: 2, appliedAt })).toEqual({
      withWarning: { calls: 80, mistakes: 2 },
      withoutWarning: { calls: 120, mistakes: 36 },
      method: 'version',
    });
  });

  it('falls back to before and after the day the warning was applied, leaving that day out', () => {
    const calls = [
      { day: day('2026-05-09'), version: 0, count: 50 },
      { day: day('2026-05-10'), version: 0, count: 500 },
      { day: day('2026-05-11'), version: 0, count: 40 },
    ];
    const mistakes = [
      { day: day('2026-05-09'), version: 0, count: 10 },
      { day: day('2026-05-10'), version: 0, count: 100 },
      { day: day('2026-05-11'), version: 0, count: 1 },
    ];
    expect(splitByWarning(calls, mistakes, { appliedVersion: 2, appliedAt })).toEqual({
      withWarning: { calls: 40, mistakes: 1 },
      withoutWarning: { calls: 50, mistakes: 10 },
      method: 'before_after',
    });
  });
});

describe('splitGuardOutcomes', () => {
  const day = (d: string) => new Date(`${d}T00:00:00Z`);
  const exposure = { appliedVersion: 2, appliedAt: new Date('2026-05-10T02:00:00Z') };
  const calls = [
    { day: day('2026-05-09'), version: 1, count: 100 },
    { day: day('2026-05-11'), version: 2, count: 80 },
  ];
  const mistakes = [
    { day: day('2026-05-09'), version: 1, count: 30 },
    { day: day('2026-05-11'), version: 2, count: 5 },
  ];

  it("splits the guard's prevented mistakes and corrected calls by version, as the mistakes were split", () => {
    const split = splitByWarning(calls, mistakes, exposure);
    const guard = {
      prevented: [
        { day: day('2026-05-09'), version: 1, count: 4 },
        { day: day('2026-05-11'), version: 2, count: 3 },
      ],
      corrected: [{ day: day('2026-05-11'), version: 2, count: 7 }],
    };
    expect(splitGuardOutcomes(calls, split, guard, exposure)).toEqual({
      withWarning: { reachedToolCount: 2, preventedCount: 3, correctedCount: 7 },
      withoutWarning: { reachedToolCount: 26, preventedCount: 4, correctedCount: 0 },
    });
  });

  it('without a guard every mistake reached the tool, and the estimate is what it was', () => {
    const split = splitByWarning(calls, mistakes, exposure);
    expect(splitGuardOutcomes(calls, split, { prevented: [], corrected: [] }, exposure)).toEqual({
      withWarning: { reachedToolCount: 5, preventedCount: 0, correctedCount: 0 },
      withoutWarning: { reachedToolCount: 30, preventedCount: 0, correctedCount: 0 },
    });
  });

  it('follows the before/after fallback when no call reported a version', () => {
    const unversioned = [
      { day: day('2026-05-09'), version: 0, count: 50 },
      { day: day('2026-05-10'), version: 0, count: 50 },
      { day: day('2026-05-11'), version: 0, count: 50 },
    ];
    const unversionedMistakes = [
      { day: day('2026-05-09'), version: 0, count: 10 },
      { day: day('2026-05-11'), version: 0, count: 4 },
    ];
    const guard = {
      prevented: [
        { day: day('2026-05-10'), version: 0, count: 9 },
        { day: day('2026-05-11'), version: 0, count: 1 },
      ],
      corrected: [{ day: day('2026-05-09'), version: 0, count: 2 }],
    };
    const split = splitByWarning(unversioned, unversionedMistakes, exposure);
    // the day the warning was applied mixes both sides and is left out, the guard's counts of that day too
    expect(splitGuardOutcomes(unversioned, split, guard, exposure)).toEqual({
      withWarning: { reachedToolCount: 3, preventedCount: 1, correctedCount: 0 },
      withoutWarning: { reachedToolCount: 10, preventedCount: 0, correctedCount: 2 },
    });
  });
});
