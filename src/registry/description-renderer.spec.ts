import { formatThousands, MAX_RENDERED_WARNINGS, renderDescription } from './description-renderer';

const warning = (text: string, count: number) => ({ text, evidence: { count } });

describe('renderDescription', () => {
  it('returns the base description alone when no warning is active', () => {
    expect(renderDescription('Perform prime factorization of a single integer.', [])).toBe(
      'Perform prime factorization of a single integer.',
    );
  });

  it('appends a block headed by the summed evidence count with thousands separators, most frequent first', () => {
    const rendered = renderDescription('Perform prime factorization of a single integer.', [
      warning("'number' above 1,000,000 fails (out of range).", 240),
      warning("Do not pass 'numbers'. The parameter is 'number' (one integer); call this tool once per number.", 1000),
    ]);
    expect(rendered).toBe(
      [
        'Perform prime factorization of a single integer.',
        '',
        'Common mistakes seen in 1,240 recent calls:',
        "- Do not pass 'numbers'. The parameter is 'number' (one integer); call this tool once per number.",
        "- 'number' above 1,000,000 fails (out of range).",
      ].join('\n'),
    );
  });

  it(`shows at most ${MAX_RENDERED_WARNINGS} warnings and counts only the ones shown`, () => {
    const warnings = Array.from({ length: 10 }, (_, i) => warning(`mistake ${i}`, i + 1));
    const lines = renderDescription('Base.', warnings).split('\n');
    expect(lines.filter((line) => line.startsWith('- '))).toHaveLength(MAX_RENDERED_WARNINGS);
    expect(lines).toContain('- mistake 9');
    expect(lines).not.toContain('- mistake 0');
    expect(lines[2]).toBe('Common mistakes seen in 52 recent calls:');
  });

  it('keeps every warning on one line and drops a bullet the author already wrote', () => {
    const rendered = renderDescription('Base.', [warning('- Pass one\n  integer,\tnot a list.', 3)]);
    expect(rendered.split('\n').pop()).toBe('- Pass one integer, not a list.');
  });

  it('heads hand-written warnings without a count plainly', () => {
    expect(renderDescription('Base.  \n', [warning('Dates are UTC.', 0)])).toBe('Base.\n\nCommon mistakes:\n- Dates are UTC.');
  });

  it('renders the block alone when the base description is empty', () => {
    expect(renderDescription('', [warning('Dates are UTC.', 2)])).toBe('Common mistakes seen in 2 recent calls:\n- Dates are UTC.');
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
