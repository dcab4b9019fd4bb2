import { AcceptedEvent } from '../infra/queue/queue.payloads';
import { withResultFailure } from './reported-failure';

// Where a reported success becomes a failure: the first matched rule the project has on decides.

describe('withResultFailure', () => {
  const event: AcceptedEvent = {
    id: 'e1',
    tool: 'factorial',
    status: 'success',
    occurredAt: '2026-11-27T00:00:00.000Z',
    result: { success: false, error: 'n must be <= 20' },
    resultFailure: { rules: ['failure_flag', 'error_field'], type: 'ResultError', message: 'n must be <= 20' },
  };

  it('makes a reported success whose result matched a rule an error, keeping the result and naming the rule', () => {
    expect(withResultFailure(event, undefined)).toEqual({
      ...event,
      status: 'error',
      error: { type: 'ResultError', message: 'n must be <= 20' },
      resultRule: 'failure_flag',
    });
  });

  it('takes the next matched rule when the first is turned off, and none when all are', () => {
    expect(withResultFailure(event, new Set(['failure_flag']))).toMatchObject({ status: 'error', resultRule: 'error_field' });
    expect(withResultFailure(event, new Set(['failure_flag', 'error_field']))).toBe(event);
  });

  it('leaves events without a result failure, and a rule name it does not know, as they are', () => {
    const plain: AcceptedEvent = { ...event, resultFailure: undefined };
    expect(withResultFailure(plain, undefined)).toBe(plain);
    const unknownRule: AcceptedEvent = { ...event, resultFailure: { rules: ['renamed_rule'], type: 'ResultError', message: 'x' } };
    expect(withResultFailure(unknownRule, undefined)).toBe(unknownRule);
  });
});
