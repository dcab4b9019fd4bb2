import { formatThousands, MAX_RENDERED_WARNINGS, renderDescription } from './description-renderer';

const warning = (text: string, count: number, calls?: number) => ({ text, evidence: calls === undefined ? { count } : { count, calls } });

describe('renderDescription', () => {
  it('returns the base description alone when no warning is active', () => {
    expect(renderDescription('Perform prime factorization of a single integer.', [])).toBe(
      'Perform prime factorization of a single integer.',
    );
  });

  it('gives each warning its own count out of the calls made since it was first seen, with thousands separators, most frequent first', () => {
    const rendered = renderDescription('Perform prime factorization of a single integer.', [
      warning("'number' above 1,000,000 fails (out of range).", 240, 14_000),
      warning("Do not pass 'numbers'. The parameter is 'number' (one integer); call this tool once per number.", 1000, 14_000),
    ]);
    expect(rendered).toBe(
      [
        'Perform prime factorization of a single integer.',
        '',
        'Common mistakes:',
        "- Do not pass 'numbers'. The parameter is 'number' (one integer); call this tool once per number. 1,000 of 14,000 recent calls failed this way.",
        "- 'number' above 1,000,000 fails (out of range). 240 of 14,000 recent calls failed this way.",
      ].join('\n'),
    );
  });

  it('states the failing count alone when the calls were not counted, and never a denominator smaller than the count', () => {
    expect(renderDescription('Base.', [warning('Pass one integer', 12)])).toBe(
      'Base.\n\nCommon mistakes:\n- Pass one integer. 12 recent calls failed this way.',
    );
    expect(renderDescription('Base.', [warning('Pass one integer.', 1)]).endsWith('1 recent call failed this way.')).toBe(true);
    expect(renderDescription('Base.', [warning('Pass one integer.', 30, 10)]).endsWith('30 recent calls failed this way.')).toBe(true);
    expect(renderDescription('Base.', [warning('Pass one integer.', 1, 140)]).endsWith('1 of 140 recent calls failed this way.')).toBe(
      true,
    );
  });

  it(`shows at most ${MAX_RENDERED_WARNINGS} warnings, the most frequent`, () => {
    const warnings = Array.from({ length: 10 }, (_, i) => warning(`mistake ${i}`, i + 1, 100));
    const lines = renderDescription('Base.', warnings).split('\n');
    expect(lines.filter((line) => line.startsWith('- '))).toHaveLength(MAX_RENDERED_WARNINGS);
    expect(lines).toContain('- mistake 9. 10 of 100 recent calls failed this way.');
    expect(lines.some((line) => line.startsWith('- mistake 0'))).toBe(false);
  });

  it('keeps every warning on one line and drops a bullet the author already wrote', () => {
    const rendered = renderDescription('Base.', [warning('- Pass one\n  integer,\tnot a list.', 3, 50)]);
    expect(rendered.split('\n').pop()).toBe('- Pass one integer, not a list. 3 of 50 recent calls failed this way.');
  });

  it('renders hand-written warnings without a count plainly', () => {
    expect(renderDescription('Base.  \n', [warning('Dates are UTC.', 0)])).toBe('Base.\n\nCommon mistakes:\n- Dates are UTC.');
  });

  it('renders the block alone when the base description is empty', () => {
    expect(renderDescription('', [warning('Dates are UTC.', 2, 9)])).toBe(
      'Common mistakes:\n- Dates are UTC. 2 of 9 recent calls failed this way.',
    );
  });
});

describe('formatThousands', () => {
  it.each([
    [0, '0'],
    [999, '999'],
    [1240, '1,240'],
    [1234567, '1,234,567'],
  ])('formats %d as %s', (value, expected) => {
    expect(formatThousands(value)).toBe(expected);
  });
});
