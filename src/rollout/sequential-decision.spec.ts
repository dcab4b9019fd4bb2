import { decideSequential, DEFAULT_MAX_LOOKS, SequentialLook } from './sequential-decision';

const at = (
  canary: [mistakes: number, calls: number],
  previous: [mistakes: number, calls: number],
  overrides: Partial<SequentialLook> = {},
) =>
  decideSequential({
    canary: { mistakes: canary[0], calls: canary[1] },
    previous: { mistakes: previous[0], calls: previous[1] },
    look: 1,
    minCalls: 100,
    maxLooks: DEFAULT_MAX_LOOKS,
    ...overrides,
  });

describe('decideSequential', () => {
  it('promotes a clear benefit at once, before either side has minCalls (0/30 against 40/130)', () => {
    const decision = at([0, 30], [40, 130]);
    expect(decision).toMatchObject({ action: 'promote', rule: 'benefit', harmPValue: 1 });
    expect(decision.benefitPValue).toBeLessThan(0.01);
    expect(decision.reason).toBe(
      'Promoted: the canary makes fewer mistakes (canary 0/30 against previous 40/130, always-valid p = 0.0042).',
    );
  });

  it('rolls back a clear harm at once, before either side has minCalls, with its numbers', () => {
    const decision = at([30, 60], [6, 60]);
    expect(decision).toMatchObject({ action: 'roll_back', rule: 'harm', benefitPValue: 1 });
    expect(decision.harmPValue).toBeLessThan(0.001);
    expect(decision.reason).toBe(
      'Rolled back: the canary makes more mistakes (canary 30/60 against previous 6/60, always-valid p = 0.0002).',
    );
  });

  it('needs more evidence than a single-look z-test: 12/100 against 5/100 (one-sided z-test p ≈ 0.04) does not roll back', () => {
    const decision = at([12, 100], [5, 100]);
    expect(decision.action).not.toBe('roll_back');
    expect(decision.harmPValue).toBeGreaterThan(0.05);
  });

  it('promotes once both sides have minCalls and no harm shows, whatever the direction of a small difference', () => {
    expect(at([6, 100], [5, 100])).toMatchObject({ action: 'promote', rule: 'enough_calls' });
    expect(at([4, 100], [5, 100])).toMatchObject({ action: 'promote', rule: 'enough_calls' });
  });

  it('keeps waiting with enough calls while a single-look test sees harm the always-valid test has not proven yet', () => {
    const decision = at([40, 100], [20, 100], { look: 3 });
    expect(decision).toMatchObject({ action: 'wait', rule: 'waiting' });
    expect(decision.harmPValue).toBeGreaterThan(0.05);
    expect(decision.reason).toContain('looks worse');
  });

  it('waits while a side is short of minCalls and the evidence is not clear, and says for what', () => {
    const decision = at([2, 40], [3, 40]);
    expect(decision).toMatchObject({ action: 'wait', rule: 'waiting' });
    expect(decision.reason).toBe(
      'Waiting for 100 calls a side or clear evidence (canary 2/40 against previous 3/40); the deadline is look 7.',
    );
  });

  it('never waits at the deadline: promotes a canary that showed no harm, and one whose look is past the deadline', () => {
    expect(at([40, 100], [20, 100], { look: 7 })).toMatchObject({
      action: 'promote',
      rule: 'deadline',
      reason: 'Promoted at the deadline (look 7): harm was not shown beyond doubt (canary 40/100 against previous 20/100).',
    });
    expect(at([1, 20], [1, 20], { look: 9 })).toMatchObject({ action: 'promote', rule: 'deadline' });
  });

  it('promotes at the deadline a canary whose side had no calls, and says nothing was measured', () => {
    const decision = at([0, 0], [5, 100], { look: 7 });
    expect(decision).toEqual({
      action: 'promote',
      rule: 'deadline',
      reason: 'Promoted at the deadline (look 7): the canary had no calls, so nothing was measured.',
      harmPValue: null,
      benefitPValue: null,
    });
  });

  it('waits without p-values while a side has no calls, even with lopsided counts on the other', () => {
    expect(at([0, 0], [90, 100])).toMatchObject({ action: 'wait', harmPValue: null, benefitPValue: null });
    expect(at([90, 100], [0, 0])).toMatchObject({ action: 'wait', harmPValue: null, benefitPValue: null });
  });

  it('handles 0 mistakes on both sides: no evidence either way, promoted on enough calls', () => {
    expect(at([0, 50], [0, 50])).toMatchObject({ action: 'wait', harmPValue: 1, benefitPValue: 1 });
    expect(at([0, 100], [0, 100])).toMatchObject({ action: 'promote', rule: 'enough_calls' });
    expect(at([100, 100], [100, 100])).toMatchObject({ action: 'promote', rule: 'enough_calls', harmPValue: 1, benefitPValue: 1 });
  });

  it('stays finite on huge counts and decides a tiny difference there', () => {
    const harm = at([200_000_000, 1_000_000_000], [190_000_000, 1_000_000_000], { minCalls: 1_000_000 });
    expect(harm).toMatchObject({ action: 'roll_back', rule: 'harm', harmPValue: 0, benefitPValue: 1 });
    expect(harm.reason).toContain('always-valid p < 0.0001');
    const even = at([100_000_000, 1_000_000_000], [100_000_000, 1_000_000_000], { minCalls: 1_000_000 });
    expect(even).toMatchObject({ action: 'promote', rule: 'enough_calls' });
    expect(Number.isFinite(even.harmPValue) && Number.isFinite(even.benefitPValue)).toBe(true);
  });

  it('reads impossible counts safely: negative or fractional counts are floored to whole calls, mistakes capped at calls', () => {
    expect(at([150, 100], [5, 100])).toEqual(at([100, 100], [5, 100]));
    expect(at([-3, 40.7], [Number.NaN, 40])).toEqual(at([0, 40], [0, 40]));
  });

  it('gives harm and benefit p-values in [0, 1], never both below alpha, across a grid of counts', () => {
    for (const calls of [1, 7, 30, 130, 1000])
      for (const canaryMistakes of [0, 1, Math.floor(calls / 3), calls])
        for (const previousMistakes of [0, 1, Math.floor(calls / 2), calls]) {
          const { harmPValue, benefitPValue } = at([canaryMistakes, calls], [previousMistakes, calls + 13]);
          for (const p of [harmPValue!, benefitPValue!]) expect(p >= 0 && p <= 1).toBe(true);
          expect(harmPValue! <= 0.05 && benefitPValue! <= 0.05).toBe(false);
        }
  });

  it('uses the given alpha: a stricter alpha waits where 0.05 decides', () => {
    expect(at([0, 30], [40, 130]).action).toBe('promote');
    expect(
      decideSequential(
        { canary: { calls: 30, mistakes: 0 }, previous: { calls: 130, mistakes: 40 }, look: 1, minCalls: 100, maxLooks: 7 },
        0.001,
      ).action,
    ).toBe('wait');
  });
});
