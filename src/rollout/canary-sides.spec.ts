import type { ValueCounts } from '../statistics/effect-breakdown';
import { breakDownCanary } from './canary-sides';

const CANARY = { canaryVersion: 3, previousVersion: 2, startedAt: new Date('2026-03-04T10:00:00Z') };
const BEFORE_BASELINE = new Date('2026-03-02T00:00:00Z');
const BASELINE = new Date('2026-03-03T00:00:00Z');
const CANARY_DAY = new Date('2026-03-04T00:00:00Z');

function modelOf(value: string, previous: [calls: number, mistakes: number], canary: [calls: number, mistakes: number]): ValueCounts {
  return {
    dimension: 'model',
    value,
    calls: [
      { day: BASELINE, version: 2, count: previous[0] },
      { day: CANARY_DAY, version: 3, count: canary[0] },
      // neither side: a day before the baseline, and a version the canary does not compare
      { day: BEFORE_BASELINE, version: 2, count: 500 },
      { day: CANARY_DAY, version: 1, count: 500 },
    ],
    mistakes: [
      { day: BASELINE, version: 2, count: previous[1] },
      { day: CANARY_DAY, version: 3, count: canary[1] },
      { day: BEFORE_BASELINE, version: 2, count: 500 },
      { day: CANARY_DAY, version: 1, count: 500 },
    ],
  };
}

describe('breakDownCanary', () => {
  it('compares the canary version with the previous one per model, from the baseline day on, and shows a divided canary', () => {
    const breakdown = breakDownCanary(CANARY, [modelOf('model-a', [80, 30], [80, 2]), modelOf('model-b', [80, 2], [80, 30])])!;
    expect(breakdown.model.map((each) => [each.value, each.verdict, each.withWarning.calls, each.withoutWarning.mistakes])).toEqual([
      ['model-a', 'helped', 80, 30],
      ['model-b', 'worse', 80, 2],
    ]);
    expect(breakdown.isDivided).toBe(true);
  });

  it('has no breakdown without counts', () => {
    expect(breakDownCanary(CANARY, null)).toBeNull();
  });
});
