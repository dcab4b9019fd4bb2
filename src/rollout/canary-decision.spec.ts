import { decideCanary } from './canary-decision';

describe('decideCanary', () => {
  it('rolls back a canary with significantly more mistakes, with its numbers', () => {
    const decision = decideCanary({ calls: 60, mistakes: 30 }, { calls: 60, mistakes: 6 }, 100);
    expect(decision.action).toBe('roll_back');
    expect(decision.estimate).toMatchObject({ verdict: 'worse', withWarning: { rate: 0.5 }, withoutWarning: { rate: 0.1 } });
    expect(decision.estimate.pValue).toBeLessThan(0.05);
  });

  it('promotes a canary that helped once both sides have the minimum calls, and waits before', () => {
    expect(decideCanary({ calls: 100, mistakes: 2 }, { calls: 100, mistakes: 30 }, 100).action).toBe('promote');
    expect(decideCanary({ calls: 60, mistakes: 1 }, { calls: 60, mistakes: 18 }, 100)).toMatchObject({ action: 'wait' });
  });

  it('promotes a canary that shows no harm after enough calls', () => {
    const decision = decideCanary({ calls: 200, mistakes: 21 }, { calls: 200, mistakes: 20 }, 200);
    expect(decision).toMatchObject({ action: 'promote', reason: 'no significant harm after enough calls' });
    expect(decision.estimate.verdict).toBe('no_effect');
  });

  it('waits while a side has fewer than 30 calls, whatever the rates', () => {
    expect(decideCanary({ calls: 29, mistakes: 29 }, { calls: 500, mistakes: 0 }, 10).action).toBe('wait');
  });
});
