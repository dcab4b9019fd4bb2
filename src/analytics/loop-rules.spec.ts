import { deriveLoopRecommendations, LOOP_REVIEW_ONLY, RepeatedFailure } from './loop-rules';

const loop = (tool: string, sessionId: string, count: number, hour: number): RepeatedFailure => ({
  tool,
  sessionId,
  argumentsHash: `hash-${sessionId}`,
  count,
  exampleEventId: `event-${sessionId}`,
  category: 'runtime_error',
  errorMessage: `Tool execution failed (${sessionId})`,
  firstSeen: new Date(Date.UTC(2026, 4, 1, hour)),
  lastSeen: new Date(Date.UTC(2026, 4, 1, hour, 5)),
});

describe('deriveLoopRecommendations', () => {
  it('makes one loop draft per tool with its sessions as evidence, most repeats first', () => {
    const drafts = deriveLoopRecommendations([loop('a', 's1', 6, 1), loop('a', 's2', 9, 2), loop('b', 's3', 7, 3)]);
    expect(drafts.map((d) => [d.tool, d.kind, d.evidenceKey])).toEqual([
      ['a', 'loop', 'loop:'],
      ['b', 'loop', 'loop:'],
    ]);
    const [a] = drafts;
    expect(a.text).toBe(
      'The error message of this tool does not tell the model how to fix the call: 2 sessions repeated the same failing call (up to 9 times). ' +
        'Make the error say what was wrong and what a correct call looks like.',
    );
    expect(a.evidence).toMatchObject({
      count: 15,
      sessionIds: ['s2', 's1'],
      exampleEventIds: ['event-s2', 'event-s1'],
      firstSeen: '2026-05-01T01:00:00.000Z',
      lastSeen: '2026-05-01T02:05:00.000Z',
      loops: [
        { sessionId: 's2', argumentsHash: 'hash-s2', repeats: 9, errorMessage: 'Tool execution failed (s2)' },
        { sessionId: 's1', argumentsHash: 'hash-s1', repeats: 6, errorMessage: 'Tool execution failed (s1)' },
      ],
      proposalOnly: LOOP_REVIEW_ONLY,
    });
  });

  it('says one session in the singular and names a session once when it looped on two calls', () => {
    const [draft] = deriveLoopRecommendations([loop('a', 's1', 6, 1), { ...loop('a', 's1', 8, 2), argumentsHash: 'other' }]);
    expect(draft.text).toContain('1 session repeated the same failing call (up to 8 times)');
    expect(draft.evidence.sessionIds).toEqual(['s1']);
    expect(draft.evidence.loops).toHaveLength(2);
  });

  it('makes nothing of no loops', () => {
    expect(deriveLoopRecommendations([])).toEqual([]);
  });
});
