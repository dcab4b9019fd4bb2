import type { RunningCanary } from '../registry/registry.types';
import { judgeCanary, WarningCounts } from './canary-judgement';

const DAY = new Date('2026-03-05T00:00:00Z');

function canaryOf(overrides: Partial<RunningCanary> = {}): RunningCanary {
  return {
    id: 'c1',
    tool: 'prime_factorization',
    warningId: 'w-name',
    warningIds: ['w-name', 'w-type'],
    design: 'alternating',
    share: 0.2,
    minCalls: 100,
    looks: 0,
    maxLooks: 7,
    previousVersion: 1,
    canaryVersion: 2,
    startedAt: new Date('2026-03-04T10:00:00Z'),
    state: null,
    ...overrides,
  };
}

const sides = (canary: [calls: number, mistakes: number], previous: [calls: number, mistakes: number]) => ({
  canary: { calls: canary[0], mistakes: canary[1] },
  previous: { calls: previous[0], mistakes: previous[1] },
});
const warning = (warningId: string, counts: WarningCounts['sides']): WarningCounts => ({
  warningId,
  counted: 'matched_mistakes',
  sides: counts,
});

describe('judgeCanary', () => {
  it('rolls back only the warning shown harmful of two tested together, and records each with its own numbers', () => {
    const look = judgeCanary(
      canaryOf(),
      [warning('w-name', sides([100, 0], [100, 30])), warning('w-type', sides([100, 40], [100, 5]))],
      DAY,
    );
    expect(look).toMatchObject({ action: 'roll_back', rolledBackWarningIds: ['w-type'] });
    expect(look.reason).toMatch(/^Rolled back: the canary makes more mistakes \(canary 40\/100 against previous 5\/100/);
    expect(look.decision.warnings).toEqual([
      expect.objectContaining({
        warningId: 'w-name',
        action: 'promote',
        rule: 'benefit',
        canary: { version: 2, calls: 100, mistakes: 0 },
        previous: { version: 1, calls: 100, mistakes: 30 },
      }),
      expect.objectContaining({
        warningId: 'w-type',
        action: 'roll_back',
        rule: 'harm',
        canary: { version: 2, calls: 100, mistakes: 40 },
        previous: { version: 1, calls: 100, mistakes: 5 },
      }),
    ]);
  });

  it('rolls back every harmful warning and names each reason', () => {
    const look = judgeCanary(
      canaryOf(),
      [warning('w-name', sides([100, 40], [100, 5])), warning('w-type', sides([100, 30], [100, 2]))],
      DAY,
    );
    expect(look.rolledBackWarningIds).toEqual(['w-name', 'w-type']);
    expect(look.reason).toContain('canary 40/100 against previous 5/100');
    expect(look.reason).toContain('canary 30/100 against previous 2/100');
  });

  it('waits while one warning waits though the other is decided, and says what it waits for', () => {
    const look = judgeCanary(canaryOf(), [warning('w-name', sides([100, 0], [100, 30])), warning('w-type', sides([20, 3], [20, 4]))], DAY);
    expect(look).toMatchObject({ action: 'wait', rolledBackWarningIds: [] });
    expect(look.reason).toMatch(/^Waiting for 100 calls a side or clear evidence \(canary 3\/20 against previous 4\/20\)/);
    expect(look.state).toMatchObject({ look: 1, waitingFor: look.reason, lookedFor: '2026-03-05', design: 'alternating' });
    expect((look.state.warnings as Array<{ action: string }>).map((each) => each.action)).toEqual(['promote', 'wait']);
  });

  it("reports each warning's breakdown by model and framework beside the decision, which the breakdown does not change", () => {
    const breakdown = {
      minCallsPerSide: 30,
      model: [],
      framework: [],
      omitted: { model: 2, framework: 0 },
      isDivided: true,
    };
    const counts = [warning('w-name', sides([100, 0], [100, 30])), warning('w-type', sides([100, 4], [100, 6]))];
    const withBreakdown = judgeCanary(canaryOf(), [{ ...counts[0], breakdown }, counts[1]], DAY);
    const without = judgeCanary(canaryOf(), counts, DAY);
    expect(withBreakdown.action).toBe(without.action);
    expect(withBreakdown.decision.breakdown).toEqual(breakdown);
    expect(without.decision.breakdown).toBeNull();
    expect((withBreakdown.decision.warnings as Array<{ breakdown: unknown }>).map((each) => each.breakdown)).toEqual([breakdown, null]);
  });

  it('promotes when every warning is decided, with the headline and the record of the first warning', () => {
    const look = judgeCanary(
      canaryOf(),
      [warning('w-name', sides([100, 0], [100, 30])), warning('w-type', sides([100, 4], [100, 6]))],
      DAY,
    );
    expect(look.action).toBe('promote');
    expect(look.headline).toEqual(sides([100, 0], [100, 30]));
    expect(look.decision).toMatchObject({
      action: 'promote',
      counted: 'matched_mistakes',
      design: 'alternating',
      look: 1,
      canary: { version: 2, calls: 100, mistakes: 0 },
      previous: { version: 1, calls: 100, mistakes: 30 },
      verdict: 'helped',
      decidedFor: '2026-03-05',
    });
  });

  it('judges a canary without a warning on the tool errors it is given', () => {
    const look = judgeCanary(
      canaryOf({ warningId: null, warningIds: [] }),
      [{ warningId: null, counted: 'errors', sides: sides([100, 40], [100, 5]) }],
      DAY,
    );
    expect(look).toMatchObject({ action: 'roll_back', rolledBackWarningIds: [], decision: { counted: 'errors' } });
  });

  it('alternates the version served until the next look: the previous after an odd look, the canary after an even one', () => {
    const waiting = [warning('w-name', sides([20, 1], [20, 2]))];
    expect(judgeCanary(canaryOf({ looks: 0 }), waiting, DAY).state).toMatchObject({ look: 1, servedUntilNextLook: 'previous' });
    expect(judgeCanary(canaryOf({ looks: 1 }), waiting, DAY).state).toMatchObject({ look: 2, servedUntilNextLook: 'canary' });
    expect(judgeCanary(canaryOf({ design: 'split' }), waiting, DAY).state).toMatchObject({ servedUntilNextLook: 'split' });
  });

  describe('a split canary one side of which got no call', () => {
    it('turns alternating when no caller was served the canary version, and says why', () => {
      const look = judgeCanary(canaryOf({ design: 'split' }), [warning('w-name', sides([0, 0], [80, 20]))], DAY);
      expect(look).toMatchObject({ action: 'wait', design: 'alternating' });
      expect(look.state).toMatchObject({ design: 'alternating', designSwitched: 'from split: no caller was served the canary version' });
      expect(look.decision).toMatchObject({ design: 'alternating' });
      // the side that got no call is served first, whatever the parity of the looks
      for (const looks of [0, 1]) {
        const again = judgeCanary(canaryOf({ design: 'split', looks }), [warning('w-name', sides([0, 0], [80, 20]))], DAY);
        expect(again.state.servedUntilNextLook).toBe('canary');
      }
    });

    it('turns alternating when no caller was served the previous version', () => {
      const look = judgeCanary(canaryOf({ design: 'split' }), [warning('w-name', sides([80, 0], [0, 0]))], DAY);
      expect(look.state).toMatchObject({ design: 'alternating', designSwitched: 'from split: no caller was served the previous version' });
      expect(look.state.servedUntilNextLook).toBe('previous');
    });

    it('stays split when both sides got calls, or neither did (nothing says which side cannot be reached)', () => {
      for (const counts of [sides([30, 1], [80, 20]), sides([0, 0], [0, 0])]) {
        const look = judgeCanary(canaryOf({ design: 'split' }), [warning('w-name', counts)], DAY);
        expect(look.design).toBe('split');
        expect(look.state.designSwitched).toBeUndefined();
      }
    });
  });

  describe('the exposure note', () => {
    const silentCanary = [warning('w-name', sides([0, 0], [100, 30]))];

    it('says clients did not fetch again when no call reported the canary version it served to everyone', () => {
      const look = judgeCanary(canaryOf({ looks: 0 }), silentCanary, DAY);
      expect(look.state.exposure).toBe(
        'no call reported version 2 while it was served to every caller: clients must fetch descriptions again ' +
          "(the SDKs' refresh, the gateway's poll) to be counted",
      );
      expect(judgeCanary(canaryOf({ looks: 2, canaryVersion: 5 }), silentCanary, DAY).state.exposure).toContain('version 5');
    });

    it('says nothing after a phase that served the previous version, for a split canary, or once the canary has calls', () => {
      expect(judgeCanary(canaryOf({ looks: 1 }), silentCanary, DAY).state.exposure).toBeNull();
      expect(judgeCanary(canaryOf({ design: 'split' }), silentCanary, DAY).state.exposure).toBeNull();
      expect(judgeCanary(canaryOf({ looks: 0 }), [warning('w-name', sides([1, 0], [100, 30]))], DAY).state.exposure).toBeNull();
    });
  });
});
