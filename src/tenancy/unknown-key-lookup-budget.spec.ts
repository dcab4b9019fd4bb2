import { UnknownKeyLookupBudget } from './unknown-key-lookup-budget';

describe('UnknownKeyLookupBudget', () => {
  it('allows a burst of its minute budget, then one lookup per share of the minute', () => {
    const budget = new UnknownKeyLookupBudget(30, 0);
    for (let i = 0; i < 30; i++) expect(budget.tryTake(0)).toBe(true);
    expect(budget.tryTake(0)).toBe(false);
    expect(budget.tryTake(1_999)).toBe(false);
    expect(budget.tryTake(2_000)).toBe(true);
    expect(budget.tryTake(2_001)).toBe(false);
  });

  it('never holds more than one minute of lookups, however long it was idle', () => {
    const budget = new UnknownKeyLookupBudget(3, 0);
    const taken = Array.from({ length: 10 }, () => budget.tryTake(3_600_000)).filter(Boolean);
    expect(taken).toHaveLength(3);
  });

  it('never refuses when turned off with 0', () => {
    const budget = new UnknownKeyLookupBudget(0, 0);
    expect(Array.from({ length: 1000 }, () => budget.tryTake(0)).every(Boolean)).toBe(true);
  });
});
