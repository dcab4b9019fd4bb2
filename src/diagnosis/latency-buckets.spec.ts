import { LATENCY_BUCKET_BOUNDS_MS, LATENCY_BUCKET_COUNT, latencyBucketIndex, percentileFromBuckets } from './latency-buckets';

function bucketsWith(entries: Record<number, number>): number[] {
  const buckets = new Array<number>(LATENCY_BUCKET_COUNT).fill(0);
  for (const [index, count] of Object.entries(entries)) buckets[Number(index)] = count;
  return buckets;
}

describe('latency buckets', () => {
  it('has one overflow bucket after the ascending bounds', () => {
    expect(LATENCY_BUCKET_COUNT).toBe(LATENCY_BUCKET_BOUNDS_MS.length + 1);
    expect([...LATENCY_BUCKET_BOUNDS_MS].sort((a, b) => a - b)).toEqual([...LATENCY_BUCKET_BOUNDS_MS]);
  });

  it.each([
    [0, 0],
    [1, 0],
    [1.5, 1],
    [2, 1],
    [100, 6],
    [101, 7],
    [60000, 14],
    [60001, 15],
    [Number.POSITIVE_INFINITY, 15],
    [Number.NaN, 15],
    [-5, 0],
  ])('puts %d ms in bucket %d', (ms, index) => {
    expect(latencyBucketIndex(ms)).toBe(index);
  });
});

describe('percentileFromBuckets', () => {
  it('returns null without data or for an invalid percentile', () => {
    expect(percentileFromBuckets(bucketsWith({}), 50)).toBeNull();
    expect(percentileFromBuckets(bucketsWith({ 3: 10 }), 101)).toBeNull();
    expect(percentileFromBuckets(bucketsWith({ 3: 10 }), Number.NaN)).toBeNull();
  });

  it('interpolates linearly inside the bucket holding the rank', () => {
    // 10 samples in (100, 250]: the median sits halfway through that bucket.
    expect(percentileFromBuckets(bucketsWith({ 7: 10 }), 50)).toBeCloseTo(175);
    expect(percentileFromBuckets(bucketsWith({ 7: 10 }), 100)).toBeCloseTo(250);
  });

  it('walks past lower buckets before interpolating', () => {
    // 50 in (0,1], 50 in (500,1000]: p75 is halfway through the second group.
    expect(percentileFromBuckets(bucketsWith({ 0: 50, 9: 50 }), 75)).toBeCloseTo(750);
    expect(percentileFromBuckets(bucketsWith({ 0: 50, 9: 50 }), 25)).toBeCloseTo(0.5);
  });

  it('reports the last finite bound when the percentile falls in the overflow bucket', () => {
    expect(percentileFromBuckets(bucketsWith({ 15: 3 }), 99)).toBe(60000);
  });

  it('ignores negative and non-finite counts', () => {
    expect(percentileFromBuckets(bucketsWith({ 2: -4, 7: 10, 8: Number.NaN }), 50)).toBeCloseTo(175);
  });
});
