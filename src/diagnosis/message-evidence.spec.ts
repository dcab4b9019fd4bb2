import { findMessageEvidence } from './message-evidence';

describe('findMessageEvidence on repeated messages', () => {
  it('reads a message seen before as it read it the first time', () => {
    const error = { type: 'ValueError', message: 'n must be at most 20, got 25' };
    const first = findMessageEvidence(error);
    expect(first).not.toBeNull();
    expect(findMessageEvidence({ ...error })).toEqual(first);
  });

  it('reads the same words under another exception type, or under none, by that type', () => {
    const message = 'request failed';
    const asTimeout = findMessageEvidence({ type: 'TimeoutError', message });
    expect(asTimeout?.finding.category).toBe('timeout');
    expect(findMessageEvidence({ type: null, message })?.finding.category).not.toBe('timeout');
    expect(findMessageEvidence({ type: 'TimeoutError', message })).toEqual(asTimeout);
  });

  it('keeps the reading of each type and message pair apart, however their texts join', () => {
    const typed = findMessageEvidence({ type: 'TimeoutError', message: 'boom' });
    const untyped = findMessageEvidence({ type: '', message: 'TimeoutErrorboom' });
    expect(typed?.finding.category).toBe('timeout');
    expect(untyped?.finding.category).not.toBe('timeout');
    expect(findMessageEvidence({ type: 'TimeoutError', message: 'boom' })).toEqual(typed);
  });
});
