import { instantText } from './categorize.service';

describe('instantText', () => {
  const formatted = (text: string) => instantText(text, new Date(text));

  it('keeps a text that is already what toISOString writes', () => {
    for (const text of ['2026-05-01T10:20:00.000Z', '2024-02-29T23:59:59.999Z', '0001-01-01T00:00:00.000Z']) {
      expect(formatted(text)).toBe(text);
      expect(formatted(text)).toBe(new Date(text).toISOString());
    }
  });

  it('formats the instant JavaScript read when the text named a day or hour that does not exist', () => {
    expect(formatted('2026-02-30T10:00:00.000Z')).toBe('2026-03-02T10:00:00.000Z');
    expect(formatted('2026-04-31T00:00:00.000Z')).toBe('2026-05-01T00:00:00.000Z');
    expect(formatted('2026-01-01T24:00:00.000Z')).toBe('2026-01-02T00:00:00.000Z');
  });

  it('formats every other way of writing an instant', () => {
    expect(formatted('2026-05-01T12:20:00.000+02:00')).toBe('2026-05-01T10:20:00.000Z');
    expect(formatted('2026-05-01T10:20:00Z')).toBe('2026-05-01T10:20:00.000Z');
    expect(formatted('2026-05-01T10:20:00.5Z')).toBe('2026-05-01T10:20:00.500Z');
    expect(formatted('2026-05-01')).toBe('2026-05-01T00:00:00.000Z');
  });
});
