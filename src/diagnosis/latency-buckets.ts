// Fixed latency histogram shared by ingest rollups and analytics. The bounds are persisted as array positions in
// hourly rollups: changing them needs a migration that re-buckets old rows.

/** Inclusive upper bound of each bucket in milliseconds; one more bucket after the last holds everything slower. */
export const LATENCY_BUCKET_BOUNDS_MS: readonly number[] = Object.freeze([
  1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000,
]);

export const LATENCY_BUCKET_COUNT = LATENCY_BUCKET_BOUNDS_MS.length + 1;

/** Index of the bucket holding `ms`; negative or non-finite input goes to the first or the overflow bucket. */
export function latencyBucketIndex(ms: number): number {
  if (Number.isNaN(ms)) return LATENCY_BUCKET_COUNT - 1;
  for (let index = 0; index < LATENCY_BUCKET_BOUNDS_MS.length; index++) {
    if (ms <= LATENCY_BUCKET_BOUNDS_MS[index]) return index;
  }
  return LATENCY_BUCKET_COUNT - 1;
}

/**
 * Estimates the p-th percentile (0..100) from bucket counts by linear interpolation inside the bucket that holds
 * the target rank, like Prometheus' histogram_quantile. The overflow bucket has no upper bound, so a percentile
 * falling there reports the last finite bound (a floor, not an estimate). Null when there is no data.
 */
export function percentileFromBuckets(buckets: readonly number[], p: number): number | null {
  if (!Number.isFinite(p) || p < 0 || p > 100) return null;
  const counts = buckets.slice(0, LATENCY_BUCKET_COUNT).map((count) => (Number.isFinite(count) && count > 0 ? count : 0));
  const total = counts.reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;

  const rank = (p / 100) * total;
  let cumulative = 0;
  for (let index = 0; index < counts.length; index++) {
    const count = counts[index];
    if (count === 0) continue;
    if (cumulative + count >= rank) {
      if (index >= LATENCY_BUCKET_BOUNDS_MS.length) return LATENCY_BUCKET_BOUNDS_MS[LATENCY_BUCKET_BOUNDS_MS.length - 1];
      const lower = index === 0 ? 0 : LATENCY_BUCKET_BOUNDS_MS[index - 1];
      const upper = LATENCY_BUCKET_BOUNDS_MS[index];
      const fraction = Math.max(0, (rank - cumulative) / count);
      return lower + (upper - lower) * fraction;
    }
    cumulative += count;
  }
  return LATENCY_BUCKET_BOUNDS_MS[LATENCY_BUCKET_BOUNDS_MS.length - 1];
}
