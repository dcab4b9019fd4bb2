import { loadConfig } from '../config/config';
import { FailedAuthLimiter } from './failed-auth-limiter';

const limiterOf = (perMinute: string) => new FailedAuthLimiter(loadConfig({ AUTH_FAILURES_PER_MINUTE: perMinute }));

describe('FailedAuthLimiter', () => {
  it('lets an address fail the limit times, then asks it to wait until its minute is over', () => {
    const limiter = limiterOf('3');
    const start = 1_000_000;
    for (let i = 0; i < 3; i++) {
      expect(limiter.retryAfterSeconds('10.0.0.1', start)).toBe(0);
      limiter.recordFailure('10.0.0.1', start + i);
    }
    expect(limiter.retryAfterSeconds('10.0.0.1', start + 10)).toBe(60);
    expect(limiter.retryAfterSeconds('10.0.0.1', start + 59_500)).toBe(1);
    expect(limiter.retryAfterSeconds('10.0.0.2', start + 10)).toBe(0);
    expect(limiter.retryAfterSeconds('10.0.0.1', start + 60_000)).toBe(0);
  });

  it('starts a new window once the last one is over', () => {
    const limiter = limiterOf('1');
    limiter.recordFailure('a', 0);
    expect(limiter.retryAfterSeconds('a', 1)).toBeGreaterThan(0);
    limiter.recordFailure('a', 60_000);
    expect(limiter.retryAfterSeconds('a', 60_001)).toBe(60);
  });

  it('never refuses when turned off with 0', () => {
    const limiter = limiterOf('0');
    for (let i = 0; i < 100; i++) limiter.recordFailure('a', i);
    expect(limiter.retryAfterSeconds('a', 100)).toBe(0);
  });
});
