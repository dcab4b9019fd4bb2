import { canaryBucket, isCanaryPhase, isServedCanary, MAX_STICKY_ID_CHARS, servedVersionOf, stickyIdOf } from './canary-assignment';

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

  describe('servedVersionOf', () => {
    const canary = (design: 'alternating' | 'split', looks: number, share = 0.3, state: Record<string, unknown> | null = null) => ({
      id: canaryId,
      design,
      looks,
      share,
      state,
      canaryVersion: 7,
      previousVersion: 4,
    });
    const callers = [null, 'agent-1', 'session-xyz', ...Array.from({ length: 50 }, (_, i) => `agent-${i}`)];

    it('alternating: serves every caller, with an id or without, the canary version after an even number of looks', () => {
      for (const looks of [0, 2, 4, 6]) {
        expect(new Set(callers.map((id) => servedVersionOf(canary('alternating', looks), id)))).toEqual(new Set([7]));
      }
      for (const looks of [1, 3, 5, 7]) {
        expect(new Set(callers.map((id) => servedVersionOf(canary('alternating', looks), id)))).toEqual(new Set([4]));
      }
      expect([0, 1, 2, 3].map(isCanaryPhase)).toEqual([true, false, true, false]);
    });

    it('alternating: serves the version its last look chose, whatever the parity of its looks', () => {
      // a split canary that turned alternating because its canary side got no call serves the canary first
      expect(servedVersionOf(canary('alternating', 1, 0.3, { servedUntilNextLook: 'canary' }), null)).toBe(7);
      expect(servedVersionOf(canary('alternating', 2, 0.3, { servedUntilNextLook: 'previous' }), null)).toBe(4);
      expect(servedVersionOf(canary('alternating', 3, 0.3, { servedUntilNextLook: 'split' }), null)).toBe(4);
    });

    it('alternating: ignores the share, even 0', () => {
      expect(servedVersionOf(canary('alternating', 0, 0), 'agent-1')).toBe(7);
    });

    it('split: serves each sticky id its side on every look, the previous version without an id', () => {
      for (const id of callers.slice(1)) {
        const side = isServedCanary(canaryId, id, 0.3) ? 7 : 4;
        for (const looks of [0, 1, 2, 3]) expect(servedVersionOf(canary('split', looks), id)).toBe(side);
      }
      for (const looks of [0, 1]) expect(servedVersionOf(canary('split', looks), null)).toBe(4);
      const served = callers.slice(1).map((id) => servedVersionOf(canary('split', 0), id));
      // both sides are reached among 52 ids at a share of 0.3
      expect(new Set(served)).toEqual(new Set([4, 7]));
    });

    it('split: everyone on the previous version at share 0 and on the canary at share 1', () => {
      expect(servedVersionOf(canary('split', 0, 0), 'agent-1')).toBe(4);
      expect(servedVersionOf(canary('split', 0, 1), 'agent-1')).toBe(7);
    });
  });
});
