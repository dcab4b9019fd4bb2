import { LATENCY_BUCKET_COUNT, latencyBucketIndex } from '../diagnosis';
import { StatsRange } from './stats-range';
import { sortToolRows, sumUsage, sumUsageByTool, ToolStatsRow, toSeries, trendOf, UsageRow } from './stats-series';

function histogram(latenciesMs: number[]): number[] {
  const buckets = new Array<number>(LATENCY_BUCKET_COUNT).fill(0);
  for (const ms of latenciesMs) buckets[latencyBucketIndex(ms)]++;
  return buckets;
}

const row = (tool: string, start: string, calls: number, errors: number, extra: Partial<UsageRow> = {}): UsageRow => ({
  tool,
  start: new Date(start),
  calls,
  errors,
  latencyBuckets: [],
  errorsByCategory: {},
  ...extra,
});

describe('sumUsage', () => {
  it('adds calls, errors and categories, and computes the success rate', () => {
    const totals = sumUsage([
      row('a', '2026-03-01', 10, 2, { errorsByCategory: { overflow: 2 } }),
      row('b', '2026-03-01T05:00:00Z', 30, 3, { errorsByCategory: { overflow: 1, timeout: 2 } }),
    ]);
    expect(totals).toMatchObject({ calls: 40, errors: 5, successRate: 35 / 40, errorsByCategory: { overflow: 3, timeout: 2 } });
  });

  it('takes percentiles from the summed histograms, not from averaging per-row percentiles', () => {
    const fast = histogram(new Array(90).fill(1));
    const slow = histogram(new Array(10).fill(900));
    const totals = sumUsage([
      row('a', '2026-03-01', 90, 0, { latencyBuckets: fast }),
      row('a', '2026-03-02', 10, 0, { latencyBuckets: slow }),
    ]);
    expect(totals.latencyP50Ms).toBeLessThanOrEqual(1);
    expect(totals.latencyP95Ms).toBeGreaterThan(500);
    expect(totals.latencyP95Ms).toBeLessThanOrEqual(1000);
  });

  it('has no success rate or latency without calls', () => {
    expect(sumUsage([])).toEqual({ calls: 0, errors: 0, successRate: null, errorsByCategory: {}, latencyP50Ms: null, latencyP95Ms: null });
  });
});

describe('sumUsageByTool', () => {
  it('gives one row per tool, merging daily and hourly rows', () => {
    const rows = sumUsageByTool([row('a', '2026-03-01', 10, 1), row('b', '2026-03-01', 5, 0), row('a', '2026-03-02T03:00:00Z', 4, 3)]);
    expect(rows.find((r) => r.tool === 'a')).toMatchObject({ calls: 14, errors: 4 });
    expect(rows).toHaveLength(2);
  });
});

describe('toSeries', () => {
  const days: StatsRange = { from: new Date('2026-03-01'), to: new Date('2026-03-04'), bucket: 'day' };

  it('folds hourly rows of a day into its day bucket and zero-fills days without calls', () => {
    const series = toSeries(
      [
        row('a', '2026-03-01', 10, 1, { errorsByCategory: { overflow: 1 } }),
        row('a', '2026-03-03T05:00:00Z', 3, 1),
        row('b', '2026-03-03T23:00:00Z', 1, 0),
      ],
      days,
    );
    expect(series).toEqual([
      { start: '2026-03-01T00:00:00.000Z', calls: 10, errors: 1, successRate: 0.9, errorsByCategory: { overflow: 1 } },
      { start: '2026-03-02T00:00:00.000Z', calls: 0, errors: 0, successRate: null, errorsByCategory: {} },
      { start: '2026-03-03T00:00:00.000Z', calls: 4, errors: 1, successRate: 0.75, errorsByCategory: {} },
    ]);
  });

  it('ignores rows outside the range', () => {
    expect(toSeries([row('a', '2026-03-05', 10, 1)], days).every((p) => p.calls === 0)).toBe(true);
  });
});

describe('sortToolRows', () => {
  const tool = (name: string, calls: number, errors: number, p95: number | null = null): ToolStatsRow => ({
    tool: name,
    calls,
    errors,
    successRate: calls ? (calls - errors) / calls : null,
    errorsByCategory: {},
    latencyP50Ms: null,
    latencyP95Ms: p95,
  });
  const rows = [tool('b', 10, 5, 20), tool('a', 10, 1), tool('c', 100, 5, 50)];
  const names = (sorted: ToolStatsRow[]) => sorted.map((r) => r.tool);

  it('sorts by name ascending', () => expect(names(sortToolRows(rows, 'name'))).toEqual(['a', 'b', 'c']));
  it('sorts by errors descending, ties by name', () => expect(names(sortToolRows(rows, 'errors'))).toEqual(['b', 'c', 'a']));
  it('sorts by success rate ascending, worst first', () => expect(names(sortToolRows(rows, 'success_rate'))).toEqual(['b', 'a', 'c']));
  it('puts rows without a value last', () => expect(names(sortToolRows(rows, 'p95'))).toEqual(['c', 'b', 'a']));
});

describe('trendOf', () => {
  it('gives the relative change of calls and the change of the success rate in points', () => {
    const trend = trendOf(sumUsage([row('a', '2026-03-02', 120, 6)]), sumUsage([row('a', '2026-03-01', 100, 10)]));
    expect(trend.callsChange).toBeCloseTo(0.2);
    expect(trend.errorsChange).toBeCloseTo(-0.4);
    expect(trend.successRateChange).toBeCloseTo(0.95 - 0.9);
  });

  it('has no change without a previous period', () => {
    expect(trendOf(sumUsage([row('a', '2026-03-02', 1, 0)]), sumUsage([]))).toEqual({
      callsChange: null,
      errorsChange: null,
      successRateChange: null,
    });
  });
});
