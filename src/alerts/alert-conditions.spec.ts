import { diffIncidents, findFirings, Signals } from './alert-conditions';

const NO_SIGNALS: Signals = { tools: [], newGroups: [], regressedGroups: [], worseWarnings: [], unregisteredTools: [] };
const window = (tool: string, calls: number, errors: number, previousCalls = 0, previousErrors = 0) => ({
  tool,
  calls,
  errors,
  previousCalls,
  previousErrors,
});

describe('findFirings', () => {
  it('success_rate_below fires per tool below the threshold with enough calls, and only those', () => {
    const signals = { ...NO_SIGNALS, tools: [window('search', 20, 10), window('calc', 20, 0), window('rare', 5, 5)] };
    const firings = findFirings({ kind: 'success_rate_below', threshold: 90, minCalls: 10 }, signals);
    expect(firings).toEqual([
      expect.objectContaining({ subject: 'tool:search', tool: 'search', details: expect.objectContaining({ successRatePercent: 50 }) }),
    ]);
    expect(firings[0].summary).toBe('Tool "search" succeeded in 50% of 20 calls (below 90%)');
  });

  it('success_rate_below does not fire exactly at the threshold', () => {
    const signals = { ...NO_SIGNALS, tools: [window('search', 10, 1)] };
    expect(findFirings({ kind: 'success_rate_below', threshold: 90, minCalls: 10 }, signals)).toEqual([]);
  });

  it('success_rate_drop compares with the previous 7 days and needs enough calls on both sides', () => {
    const signals = {
      ...NO_SIGNALS,
      tools: [window('search', 20, 6, 100, 0), window('calc', 20, 6, 5, 0), window('flat', 20, 2, 100, 8)],
    };
    const firings = findFirings({ kind: 'success_rate_drop', threshold: 20, minCalls: 10 }, signals);
    expect(firings.map((f) => f.subject)).toEqual(['tool:search']);
    expect(firings[0].details).toMatchObject({ dropPoints: 30, successRatePercent: 70, previousSuccessRatePercent: 100 });
  });

  it('new_error_group fires for groups with at least minCalls events; regressed groups always fire', () => {
    const group = { tool: 't', category: 'overflow', messageTemplate: 'n too large' };
    const signals = {
      ...NO_SIGNALS,
      newGroups: [
        { ...group, id: 'g1', count: 5 },
        { ...group, id: 'g2', count: 4 },
      ],
      regressedGroups: [{ ...group, id: 'g3', count: 1 }],
    };
    expect(findFirings({ kind: 'new_error_group', threshold: null, minCalls: 5 }, signals).map((f) => f.subject)).toEqual(['group:g1']);
    expect(findFirings({ kind: 'regressed_error_group', threshold: null, minCalls: 1 }, signals).map((f) => f.subject)).toEqual([
      'group:g3',
    ]);
  });

  it('quotes and cuts untrusted tool names in summaries', () => {
    const name = `evil"\n${'x'.repeat(300)}`;
    const [firing] = findFirings(
      { kind: 'unregistered_tool', threshold: null, minCalls: 1 },
      {
        ...NO_SIGNALS,
        unregisteredTools: [{ tool: name, calls: 3 }],
      },
    );
    expect(firing.summary).toContain('"evil\\"\\n');
    expect(firing.summary.length).toBeLessThan(200);
  });
});

describe('diffIncidents', () => {
  it('opens new subjects, resolves those that stopped firing, keeps the rest', () => {
    const firing = (subject: string) => ({ subject, tool: null, summary: '', details: {} });
    const diff = diffIncidents([{ subject: 'a' }, { subject: 'b' }], [firing('b'), firing('c')]);
    expect(diff.toOpen.map((f) => f.subject)).toEqual(['c']);
    expect(diff.toResolve.map((i) => i.subject)).toEqual(['a']);
    expect(diff.stillFiring.map((f) => f.subject)).toEqual(['b']);
  });
});
