import { canaryBucket, isServedCanary, MAX_STICKY_ID_CHARS, stickyIdOf } from './canary-assignment';

describe('canary assignment', () => {
  const canaryId = '6a1f3c2e-0d4b-4c55-9a8e-2f7b1c0d9e11';

  it('gives an agent the same answer on every call', () => {
    for (const agent of ['agent-1', 'agent-2', 'session-xyz']) {
      const first = isServedCanary(canaryId, agent, 0.3);
      for (let i = 0; i < 5; i++) expect(isServedCanary(canaryId, agent, 0.3)).toBe(first);
    }
  });

  it('serves the canary to about its share of 2,000 agents', () => {
    const served = Array.from({ length: 2000 }, (_, i) => isServedCanary(canaryId, `agent-${i}`, 0.2)).filter(Boolean).length;
    // binomial(2000, 0.2): mean 400, sd ~18; five sd either side
    expect(served).toBeGreaterThan(310);
    expect(served).toBeLessThan(490);
  });

  it('keeps an agent in the canary when the share grows, and draws independently for another canary', () => {
    const agents = Array.from({ length: 500 }, (_, i) => `agent-${i}`);
    const at10 = agents.filter((a) => isServedCanary(canaryId, a, 0.1));
    expect(at10.every((a) => isServedCanary(canaryId, a, 0.5))).toBe(true);
    const other = agents.filter((a) => isServedCanary('another-canary', a, 0.1));
    expect(other).not.toEqual(at10);
  });

  it('serves the previous version to a caller without a sticky id, and to everyone at share 0', () => {
    expect(isServedCanary(canaryId, null, 1)).toBe(false);
    expect(isServedCanary(canaryId, 'agent-1', 0)).toBe(false);
    expect(isServedCanary(canaryId, 'agent-1', 1)).toBe(true);
  });

  it('buckets fall in [0, 1)', () => {
    for (let i = 0; i < 100; i++) {
      const bucket = canaryBucket(canaryId, `a${i}`);
      expect(bucket).toBeGreaterThanOrEqual(0);
      expect(bucket).toBeLessThan(1);
    }
  });

  it('sticks to the session over the agent, ignores blank ids and cuts long ones', () => {
    expect(stickyIdOf({ session: 's-1', agent: 'a-1' })).toBe('s-1');
    expect(stickyIdOf({ session: '  ', agent: 'a-1' })).toBe('a-1');
    expect(stickyIdOf({})).toBeNull();
    expect(stickyIdOf({ agent: 'x'.repeat(1000) })).toHaveLength(MAX_STICKY_ID_CHARS);
  });
});
