import { LATENCY_BUCKET_COUNT, latencyBucketIndex } from '../diagnosis';
import { computeDailyToolStat } from './daily-stats';

function buckets(latenciesMs: number[]): number[] {
  const counts = new Array(LATENCY_BUCKET_COUNT).fill(0);
  for (const ms of latenciesMs) counts[latencyBucketIndex(ms)] += 1;
  return counts;
}

describe('computeDailyToolStat', () => {
  const base = {
    tool: 'factorial',
    calls: 100,
    errors: 20,
    latencyCount: 100,
    latencyBuckets: buckets([...new Array(90).fill(3), ...new Array(10).fill(900)]),
    errorsByCategory: [
      { category: 'overflow', subtype: '', count: 15 },
      { category: 'out_of_range', subtype: 'above_maximum', count: 3 },
      { category: 'out_of_range', subtype: 'below_minimum', count: 2 },
    ],
    prev7Calls: 700,
    prev7Errors: 70,
  };

  it('computes success rate and its change against the previous 7 days', () => {
    const stat = computeDailyToolStat(base);
    expect(stat.successes).toBe(80);
    expect(stat.successRate).toBeCloseTo(0.8);
    expect(stat.prev7SuccessRate).toBeCloseTo(0.9);
    expect(stat.successRateChange).toBeCloseTo(-0.1);
  });

  it('sums errors by category and by category/subtype', () => {
    const stat = computeDailyToolStat(base);
    expect(stat.errorsByCategory).toEqual({ overflow: 15, out_of_range: 5 });
    expect(stat.errorsBySubtype).toEqual({ 'out_of_range/above_maximum': 3, 'out_of_range/below_minimum': 2 });
  });

  it('estimates p50 and p95 latency from the histogram', () => {
    const stat = computeDailyToolStat(base);
    expect(stat.latencyP50Ms!).toBeLessThanOrEqual(5);
    expect(stat.latencyP95Ms!).toBeGreaterThan(500);
    expect(stat.latencyP95Ms!).toBeLessThanOrEqual(1000);
  });

  it('leaves rates and latency null when there is nothing to measure', () => {
    const stat = computeDailyToolStat({ ...base, calls: 0, errors: 0, latencyCount: 0, prev7Calls: 0, prev7Errors: 0 });
    expect(stat.successRate).toBeNull();
    expect(stat.prev7SuccessRate).toBeNull();
    expect(stat.successRateChange).toBeNull();
    expect(stat.latencyP50Ms).toBeNull();
  });
});
