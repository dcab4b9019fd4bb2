/**
 * How the freeze tests judge /healthz latencies sampled (from a process of their own) while an attack runs. A frozen
 * event loop holds every request for the whole freeze (the attacks these tests replay held it for 2 to 57 s), so the
 * 95th percentile stays under 100 ms and no request waits past 300 ms. The slowest single request is not held to
 * 100 ms: on this 2-core box the scheduler alone puts a lone request past it now and then (old main's own hostile-schema
 * test measured 110-150 ms maxima on an idle box, 2026-11-27), and a test must not fail on what it does not test.
 * Measured again the same day, each of the three freeze files alone in its Jest run, four times, on the box shared
 * with other sessions (load average 8 to 15): of the 40 samplings, 13 had a max under 100 ms (min 24, median 202,
 * worst 540 ms), and p95 ranged 12 to 294 ms. The maxima are the scheduler's, not a freeze (a freeze holds every
 * request of its seconds), so the max stays bounded loosely and the bound that tells a freeze is the p95.
 */
export const HEALTHZ_P95_BOUND_MS = 100;
export const HEALTHZ_MAX_BOUND_MS = 300;

export function expectHealthzResponsive(healthzMs: readonly number[], minSamples = 5): void {
  expect(healthzMs.length).toBeGreaterThan(minSamples);
  const sorted = [...healthzMs].sort((a, b) => a - b);
  const p95 = sorted[Math.ceil(0.95 * sorted.length) - 1];
  expect(p95).toBeLessThan(HEALTHZ_P95_BOUND_MS);
  expect(sorted[sorted.length - 1]).toBeLessThan(HEALTHZ_MAX_BOUND_MS);
}
