import { measuredValue, selectUnderCap } from './warning-token-cap';

describe('selectUnderCap', () => {
  it('keeps the best effect per token while it fits and drops the lowest-value warning', () => {
    const selection = selectUnderCap(
      [
        { id: 'a', tokens: 40, value: 100 },
        { id: 'b', tokens: 40, value: 20 },
        { id: 'c', tokens: 40, value: 60 },
      ],
      100,
    );
    expect(selection.kept.map((w) => w.id)).toEqual(['a', 'c']);
    expect(selection.dropped.map((w) => w.id)).toEqual(['b']);
    expect(selection.keptTokens).toBe(80);
  });

  it('ranks by value per token, not by value: a short line that helps a little beats a long one that helps a bit more', () => {
    const selection = selectUnderCap(
      [
        { id: 'long', tokens: 90, value: 90 },
        { id: 'short', tokens: 10, value: 30 },
      ],
      95,
    );
    expect(selection.kept.map((w) => w.id)).toEqual(['short']);
    expect(selection.dropped.map((w) => w.id)).toEqual(['long']);
  });

  it('breaks ties by id, whatever order the warnings come in, and still fits a smaller one after a dropped one', () => {
    const warnings = [
      { id: 'b', tokens: 30, value: 0 },
      { id: 'a', tokens: 30, value: 0 },
      { id: 'c', tokens: 10, value: 0 },
    ];
    for (const order of [warnings, [...warnings].reverse()]) {
      const selection = selectUnderCap(order, 45);
      expect(selection.kept.map((w) => w.id)).toEqual(['a', 'c']);
      expect(selection.dropped.map((w) => w.id)).toEqual(['b']);
    }
  });

  it('drops every warning under a cap of 0', () => {
    expect(selectUnderCap([{ id: 'a', tokens: 5, value: 10 }], 0).dropped.map((w) => w.id)).toEqual(['a']);
  });
});

describe('measuredValue', () => {
  it('is the mistakes avoided per 1,000 calls, floored at 0, and 0 while a side has no rate', () => {
    expect(measuredValue({ withWarning: { rate: 0.02 }, withoutWarning: { rate: 0.1 } })).toBe(80);
    expect(measuredValue({ withWarning: { rate: 0.2 }, withoutWarning: { rate: 0.1 } })).toBe(0);
    expect(measuredValue({ withWarning: { rate: null }, withoutWarning: { rate: 0.1 } })).toBe(0);
    expect(measuredValue(null)).toBe(0);
  });
});
