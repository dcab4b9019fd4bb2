import { formatDay, parseDay, previousDay } from './analytics-day';

describe('parseDay', () => {
  it('accepts a calendar day as midnight UTC', () => {
    expect(parseDay('2026-02-28')!.toISOString()).toBe('2026-02-28T00:00:00.000Z');
  });

  it.each(['2026-02-30', '2026-13-01', '26-01-01', '2026-01-01T00:00:00Z', ''])('refuses %j', (value) => {
    expect(parseDay(value)).toBeNull();
  });
});

describe('previousDay', () => {
  it('is the UTC day before, whatever the hour', () => {
    expect(formatDay(previousDay(new Date('2026-05-10T00:00:01Z')))).toBe('2026-05-09');
    expect(formatDay(previousDay(new Date('2026-05-10T23:59:59Z')))).toBe('2026-05-09');
  });
});
