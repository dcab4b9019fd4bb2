import { decideSequential, DEFAULT_MAX_LOOKS, DEFAULT_SEQUENTIAL_ALPHA, SequentialRule, SideCounts } from './sequential-decision';

// 10,000 simulated alternating canaries per scenario with a known true effect, judged by decideSequential every night
// as the nightly does: day 0 is the previous version's baseline, then days alternate canary (odd looks) and previous
// (even looks), every call of a day on that day's side. The tables it prints are the ones in docs/rollout-statistics.md.

const RUNS = 10_000;
const ALPHA = DEFAULT_SEQUENTIAL_ALPHA;
const DEFAULT_MIN_CALLS = 100;
/** Out of reach: only the harm and benefit tests and the deadline decide. */
const UNREACHABLE_MIN_CALLS = 1_000_000;
/** Seeds are fixed, so a run reproduces these exactly; a changed rule that moves a rate by a point or more fails. */
const TOLERANCE = 0.01;

// Read once: inside Jest's sandbox every `Math.x` is a slow lookup on the sandbox's global.
const { abs, ceil, exp, floor, imul, log, min, pow, round } = Math;

interface Scenario {
  callsPerDay: number;
  baseRate: number;
  /** Relative change of the canary's mistake rate: -0.5 halves it. */
  effect: number;
  minCalls: number;
}

interface Outcome {
  rolledBack: number;
  promoted: number;
  medianLook: number;
  p90Look: number;
  /** Share of canaries decided at look 1 or 2. */
  decidedByLook2: number;
  /** Share of canaries each clause decided. */
  byRule: Record<Exclude<SequentialRule, 'waiting'>, number>;
}

type ExpectedRow = [
  callsPerDay: number,
  baseRate: number,
  effect: number,
  rolledBack: number,
  promoted: number,
  medianLook: number,
  p90Look: number,
];

/** What the default policy (minCalls 100, maxLooks 7, alpha 0.05) measured with the seeds below. */
const EXPECTED_DEFAULT: ExpectedRow[] = [
  [40, 0.05, 0, 0.0002, 0.9998, 5, 5],
  [40, 0.05, -0.5, 0, 1, 5, 5],
  [40, 0.05, -0.9, 0, 1, 5, 5],
  [40, 0.05, 0.5, 0.0036, 0.9964, 5, 7],
  [40, 0.05, 1, 0.0222, 0.9778, 5, 7],
  [40, 0.2, 0, 0.0008, 0.9992, 5, 5],
  [40, 0.2, -0.5, 0, 1, 5, 5],
  [40, 0.2, -0.9, 0, 1, 3, 5],
  [40, 0.2, 0.5, 0.0473, 0.9527, 6, 7],
  [40, 0.2, 1, 0.5374, 0.4626, 7, 7],
  [100, 0.05, 0, 0.0001, 0.9999, 1, 1],
  [100, 0.05, -0.5, 0, 1, 1, 1],
  [100, 0.05, -0.9, 0, 1, 1, 1],
  [100, 0.05, 0.5, 0.0061, 0.9939, 1, 4],
  [100, 0.05, 1, 0.0696, 0.9304, 1, 7],
  [100, 0.2, 0, 0.0002, 0.9998, 1, 1],
  [100, 0.2, -0.5, 0, 1, 1, 1],
  [100, 0.2, -0.9, 0, 1, 1, 1],
  [100, 0.2, 0.5, 0.1734, 0.8266, 1, 7],
  [100, 0.2, 1, 0.9202, 0.0798, 3, 5],
  [300, 0.05, 0, 0, 1, 1, 1],
  [300, 0.05, -0.5, 0, 1, 1, 1],
  [300, 0.05, -0.9, 0, 1, 1, 1],
  [300, 0.05, 0.5, 0.0323, 0.9677, 1, 7],
  [300, 0.05, 1, 0.5519, 0.4481, 4, 7],
  [300, 0.2, 0, 0, 1, 1, 1],
  [300, 0.2, -0.5, 0, 1, 1, 1],
  [300, 0.2, -0.9, 0, 1, 1, 1],
  [300, 0.2, 0.5, 0.8302, 0.1698, 3, 7],
  [300, 0.2, 1, 0.9999, 0.0001, 1, 1],
];

/** The same at 100 calls a day with minCalls out of reach: what the always-valid tests decide by themselves. */
const EXPECTED_SEQUENTIAL_ONLY: ExpectedRow[] = [
  [100, 0.05, 0, 0.0002, 0.9998, 7, 7],
  [100, 0.05, -0.5, 0, 1, 7, 7],
  [100, 0.05, -0.9, 0, 1, 7, 7],
  [100, 0.05, 0.5, 0.0086, 0.9914, 7, 7],
  [100, 0.05, 1, 0.0923, 0.9077, 7, 7],
  [100, 0.2, 0, 0.0003, 0.9997, 7, 7],
  [100, 0.2, -0.5, 0, 1, 7, 7],
  [100, 0.2, -0.9, 0, 1, 1, 3],
  [100, 0.2, 0.5, 0.2158, 0.7842, 7, 7],
  [100, 0.2, 1, 0.9833, 0.0167, 3, 5],
];

/** mulberry32: a tiny seeded PRNG, so every run draws the same canaries. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Binomial(n, p) by inverting its distribution function: exact, and quick for the small n·p here. */
function drawBinomial(random: () => number, calls: number, rate: number): number {
  if (rate <= 0 || calls === 0) return 0;
  if (rate >= 1) return calls;
  const u = random();
  const odds = rate / (1 - rate);
  let probability = pow(1 - rate, calls);
  let cumulative = probability;
  let k = 0;
  while (u > cumulative && k < calls) {
    probability *= (odds * (calls - k)) / (k + 1);
    k++;
    cumulative += probability;
  }
  return k;
}

interface CanaryRun {
  rule: Exclude<SequentialRule, 'waiting'>;
  action: 'promote' | 'roll_back';
  look: number;
}

/** One canary from its baseline day to its decision. `callsOnDay` never looks at the outcomes, as real traffic does not. */
function simulateCanary(
  random: () => number,
  rates: { previous: number; canary: number },
  callsOnDay: (day: number) => number,
  limits: { minCalls: number; maxLooks: number },
): CanaryRun {
  const baselineCalls = callsOnDay(0);
  const previous: SideCounts = { calls: baselineCalls, mistakes: drawBinomial(random, baselineCalls, rates.previous) };
  const canary: SideCounts = { calls: 0, mistakes: 0 };
  for (let look = 1; ; look++) {
    const isCanaryDay = look % 2 === 1;
    const side = isCanaryDay ? canary : previous;
    const calls = callsOnDay(look);
    side.calls += calls;
    side.mistakes += drawBinomial(random, calls, isCanaryDay ? rates.canary : rates.previous);
    const decision = decideSequential({ canary, previous, look, ...limits });
    if (decision.action !== 'wait') return { rule: decision.rule as CanaryRun['rule'], action: decision.action, look };
  }
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[min(sorted.length - 1, ceil(fraction * sorted.length) - 1)];
}

function runScenario(scenario: Scenario, seed: number): Outcome {
  const random = mulberry32(seed);
  const rates = { previous: scenario.baseRate, canary: scenario.baseRate * (1 + scenario.effect) };
  const limits = { minCalls: scenario.minCalls, maxLooks: DEFAULT_MAX_LOOKS };
  const looks: number[] = [];
  const byRule = { harm: 0, benefit: 0, enough_calls: 0, deadline: 0 };
  let rolledBack = 0;
  for (let run = 0; run < RUNS; run++) {
    const { rule, action, look } = simulateCanary(random, rates, () => scenario.callsPerDay, limits);
    looks.push(look);
    byRule[rule]++;
    if (action === 'roll_back') rolledBack++;
  }
  looks.sort((a, b) => a - b);
  return {
    rolledBack: rolledBack / RUNS,
    promoted: 1 - rolledBack / RUNS,
    medianLook: percentile(looks, 0.5),
    p90Look: percentile(looks, 0.9),
    decidedByLook2: looks.filter((look) => look <= 2).length / RUNS,
    byRule: {
      harm: byRule.harm / RUNS,
      benefit: byRule.benefit / RUNS,
      enough_calls: byRule.enough_calls / RUNS,
      deadline: byRule.deadline / RUNS,
    },
  };
}

const grid = (callsPerDay: readonly number[], minCalls: number): Scenario[] =>
  callsPerDay.flatMap((calls) =>
    [0.05, 0.2].flatMap((baseRate) => [0, -0.5, -0.9, 0.5, 1].map((effect) => ({ callsPerDay: calls, baseRate, effect, minCalls }))),
  );

const percent = (rate: number) => `${(100 * rate).toFixed(1)}%`;

function formatTable(scenarios: readonly Scenario[], outcomes: readonly Outcome[]): string {
  const header = [
    '| calls/day | base rate | true effect | rolled back | promoted | look median | look p90 | harm / benefit / enough calls / deadline |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const rows = scenarios.map((s, i) => {
    const o = outcomes[i];
    const effect = s.effect === 0 ? 'none' : `${s.effect > 0 ? '+' : ''}${100 * s.effect}%`;
    const rules = [o.byRule.harm, o.byRule.benefit, o.byRule.enough_calls, o.byRule.deadline].map(percent).join(' / ');
    return `| ${s.callsPerDay} | ${100 * s.baseRate}% | ${effect} | ${percent(o.rolledBack)} | ${percent(o.promoted)} | ${o.medianLook} | ${o.p90Look} | ${rules} |`;
  });
  return [...header, ...rows].join('\n');
}

/** The scenarios that differ from their expected row by more than the tolerance (or in a look), for a readable failure. */
function mismatches(scenarios: readonly Scenario[], outcomes: readonly Outcome[], expected: readonly ExpectedRow[]): string[] {
  return scenarios.flatMap((s, i) => {
    const row = expected.find(([calls, base, effect]) => calls === s.callsPerDay && base === s.baseRate && effect === s.effect);
    const o = outcomes[i];
    const share = (rate: number) => round(rate * RUNS) / RUNS;
    const measured: ExpectedRow = [s.callsPerDay, s.baseRate, s.effect, share(o.rolledBack), share(o.promoted), o.medianLook, o.p90Look];
    const isClose =
      row !== undefined &&
      abs(row[3] - o.rolledBack) <= TOLERANCE &&
      abs(row[4] - o.promoted) <= TOLERANCE &&
      row[5] === o.medianLook &&
      row[6] === o.p90Look;
    return isClose ? [] : [`measured [${measured.join(', ')}], expected [${row?.join(', ') ?? 'no row'}]`];
  });
}

describe('decideSequential on 10,000 simulated alternating canaries per scenario', () => {
  const defaults = grid([40, 100, 300], DEFAULT_MIN_CALLS);
  const sequentialOnly = grid([100], UNREACHABLE_MIN_CALLS);
  let defaultOutcomes: Outcome[] = [];
  let sequentialOutcomes: Outcome[] = [];

  beforeAll(() => {
    defaultOutcomes = defaults.map((scenario, index) => runScenario(scenario, 0x5eed + index));
    sequentialOutcomes = sequentialOnly.map((scenario, index) => runScenario(scenario, 0xc0de + index));
    console.log(
      `Default policy (minCalls ${DEFAULT_MIN_CALLS}, maxLooks ${DEFAULT_MAX_LOOKS}, alpha ${ALPHA}):\n${formatTable(defaults, defaultOutcomes)}`,
    );
    console.log(
      `minCalls out of reach (the always-valid tests and the deadline alone):\n${formatTable(sequentialOnly, sequentialOutcomes)}`,
    );
  });

  const allResults = () =>
    [...defaults, ...sequentialOnly].map((scenario, i) => ({ scenario, outcome: [...defaultOutcomes, ...sequentialOutcomes][i] }));

  it('rolls back at most alpha of the canaries that do not harm (the proven bound)', () => {
    const harmless = allResults().filter(({ scenario }) => scenario.effect <= 0);
    expect(harmless).toHaveLength(24);
    for (const { outcome } of harmless) expect(outcome.rolledBack).toBeLessThanOrEqual(ALPHA);
  });

  it('decides at look 1 or 2 for at least 95% of -90% canaries at 100 calls a day on the default policy', () => {
    const clear = allResults().filter(
      ({ scenario }) => scenario.callsPerDay === 100 && scenario.effect === -0.9 && scenario.minCalls === DEFAULT_MIN_CALLS,
    );
    expect(clear).toHaveLength(2);
    for (const { outcome } of clear) expect(outcome.decidedByLook2).toBeGreaterThanOrEqual(0.95);
  });

  it('measures the rates printed in the tables, within the tolerance', () => {
    expect(mismatches(defaults, defaultOutcomes, EXPECTED_DEFAULT)).toEqual([]);
    expect(mismatches(sequentialOnly, sequentialOutcomes, EXPECTED_SEQUENTIAL_ONLY)).toEqual([]);
  });

  it('stays valid when nobody stops it: 30 looks with daily volumes from 0 to 300 and no effect', () => {
    const volumes = mulberry32(0xda7a);
    const dailyCalls = Array.from({ length: 31 }, () => floor(volumes() * 301));
    for (const [index, baseRate] of [0.05, 0.2].entries()) {
      const random = mulberry32(0xfa15e + index);
      let harm = 0;
      let benefit = 0;
      for (let run = 0; run < RUNS; run++) {
        const { rule } = simulateCanary(random, { previous: baseRate, canary: baseRate }, (day) => dailyCalls[day], {
          minCalls: UNREACHABLE_MIN_CALLS,
          maxLooks: 30,
        });
        if (rule === 'harm') harm++;
        if (rule === 'benefit') benefit++;
      }
      console.log(
        `no effect, base rate ${percent(baseRate)}, 30 looks: harm shown ${percent(harm / RUNS)}, benefit shown ${percent(benefit / RUNS)}`,
      );
      expect(harm / RUNS).toBeLessThanOrEqual(ALPHA);
      expect(benefit / RUNS).toBeLessThanOrEqual(ALPHA);
    }
  });

  it('never shows harm with probability above alpha, computed exactly over every path of 7 looks at 20 calls a day', () => {
    for (const rate of [0.05, 0.2, 0.5]) {
      const probability = exactHarmProbability(rate, 20, 7);
      console.log(`exact, no effect, base rate ${percent(rate)}, 7 looks of 20 calls: P(harm shown) = ${probability.toExponential(2)}`);
      expect(probability).toBeLessThanOrEqual(ALPHA);
    }
  });
});

/**
 * P(the harm test ever rejects within `looks` looks) when both sides share `rate`, summed over every outcome rather than
 * sampled: the probability mass of each (canary mistakes, previous mistakes) pair is carried from look to look, and
 * the mass that crosses is taken out. Nothing but the harm test stops a path, so this bounds the rule's false rollback.
 */
function exactHarmProbability(rate: number, callsPerDay: number, looks: number): number {
  const pmf = Array.from({ length: callsPerDay + 1 }, (_, k) =>
    exp(logChoose(callsPerDay, k) + k * log(rate) + (callsPerDay - k) * log(1 - rate)),
  );
  const width = callsPerDay * (floor(looks / 2) + 1) + 1;
  let mass = new Float64Array(width * width); // index canaryMistakes * width + previousMistakes
  pmf.forEach((probability, k) => (mass[k] = probability));
  let crossed = 0;
  for (let look = 1; look <= looks; look++) {
    const isCanaryDay = look % 2 === 1;
    const next = new Float64Array(width * width);
    mass.forEach((probability, index) => {
      if (probability === 0) return;
      pmf.forEach((day, k) => (next[index + (isCanaryDay ? k * width : k)] += probability * day));
    });
    const canaryCalls = callsPerDay * ceil(look / 2);
    const previousCalls = callsPerDay * (floor(look / 2) + 1);
    next.forEach((probability, index) => {
      if (probability === 0) return;
      const canary = { calls: canaryCalls, mistakes: floor(index / width) };
      const previous = { calls: previousCalls, mistakes: index % width };
      const { harmPValue } = decideSequential({ canary, previous, look, minCalls: UNREACHABLE_MIN_CALLS, maxLooks: looks + 1 });
      if (harmPValue !== null && harmPValue <= ALPHA) {
        crossed += probability;
        next[index] = 0;
      }
    });
    mass = next;
  }
  return crossed;
}

function logChoose(n: number, k: number): number {
  let sum = 0;
  for (let i = 1; i <= k; i++) sum += log(n - k + i) - log(i);
  return sum;
}
