import { damerauLevenshtein, matchArgumentName, MAX_MATCHED_CANDIDATES, MAX_MATCHED_NAME_CHARS } from '../src/argument-names';

describe('matchArgumentName', () => {
  it.each([
    ['numbers', ['number', 'unit'], 'number'],
    ['queries', ['query', 'limit'], 'query'],
    ['boxes', ['box'], 'box'],
    ['city', ['cities'], 'cities'],
    ['maxResults', ['max_results', 'query'], 'max_results'],
    ['Max-Results', ['max_results'], 'max_results'],
    ['num', ['number', 'precision'], 'number'],
    ['qty', ['quantity', 'sku'], 'quantity'],
    ['q', ['query', 'limit'], 'query'],
    ['nubmer', ['number', 'unit'], 'number'],
    ['quantty', ['quantity', 'sku'], 'quantity'],
    ['location_name', ['location', 'date'], 'location'],
  ])('matches %j to %j among %j', (wrong, candidates, expected) => {
    expect(matchArgumentName(wrong, candidates)).toBe(expected);
  });

  it('returns null when nothing is close', () => {
    expect(matchArgumentName('color', ['number', 'unit'])).toBeNull();
  });

  it('does not treat a one-letter change in a short name as a typo', () => {
    expect(matchArgumentName('ip', ['id'])).toBeNull();
  });

  it('returns null when two different candidates are equally close', () => {
    expect(matchArgumentName('nane', ['name', 'nine'])).toBeNull();
  });

  it('never proposes the wrong name itself', () => {
    expect(matchArgumentName('number', ['number'])).toBeNull();
  });

  it('prefers an exact normalized match over a closer-looking typo', () => {
    expect(matchArgumentName('userName', ['user_name', 'username2'])).toBe('user_name');
  });

  it('ignores non-string candidates and absurd inputs', () => {
    expect(matchArgumentName('', ['number'])).toBeNull();
    expect(matchArgumentName('x'.repeat(500), ['number'])).toBeNull();
    expect(matchArgumentName('numbers', [42 as unknown as string, 'number'])).toBe('number');
  });
});

describe('damerauLevenshtein', () => {
  it.each([
    ['number', 'number', 0],
    ['nubmer', 'number', 1],
    ['numbr', 'number', 1],
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
  ])('distance(%j, %j) = %d', (a, b, distance) => {
    expect(damerauLevenshtein(a, b)).toBe(distance);
  });
});

describe('bounded work (issue 33)', () => {
  /** Every string over {a, b} up to `maxLength` characters: small enough to compare all pairs, varied enough for transpositions. */
  const words = (maxLength: number): string[] => {
    const all = [''];
    for (let length = 1; length <= maxLength; length++) {
      for (let bits = 0; bits < 2 ** length; bits++) all.push(bits.toString(2).padStart(length, '0').replace(/0/g, 'a').replace(/1/g, 'b'));
    }
    return all;
  };

  it('answers the banded distance like the full table, up to the limit', () => {
    const all = words(5);
    const differing: string[] = [];
    for (const a of all) {
      for (const b of all) {
        const full = damerauLevenshtein(a, b);
        for (const limit of [0, 1, 2, 3]) {
          if (damerauLevenshtein(a, b, limit) !== Math.min(full, limit + 1)) differing.push(`${a} ${b} ${limit}`);
        }
      }
    }
    expect(differing).toEqual([]);
  });

  it('never matches names longer than MAX_MATCHED_NAME_CHARS, in either role', () => {
    const long = `number${'x'.repeat(MAX_MATCHED_NAME_CHARS)}`;
    expect(matchArgumentName(long, [`${long}s`])).toBeNull();
    expect(matchArgumentName(`${long}s`, [long, 'unit'])).toBeNull();
    expect(matchArgumentName('numbers', [long, 'number'])).toBe('number');
  });

  it('proposes nothing among more than MAX_MATCHED_CANDIDATES candidates', () => {
    const many = Array.from({ length: MAX_MATCHED_CANDIDATES }, (_, i) => `param_${i}`);
    expect(matchArgumentName('numbers', [...many.slice(1), 'number'])).toBe('number');
    expect(matchArgumentName('numbers', [...many, 'number'])).toBeNull();
  });

  it('matches the worst case it accepts (long near-miss names, every candidate examined)', () => {
    // its cost is measured by test/e2e/bounded-validate.e2e-spec.ts (/healthz during the attack), not timed here
    const stem = 'a'.repeat(MAX_MATCHED_NAME_CHARS - 5);
    const declared = Array.from({ length: MAX_MATCHED_CANDIDATES }, (_, i) => `${stem}${String(i).padStart(4, '0')}`);
    const unknown = Array.from({ length: 50 }, (_, i) => `${stem}${String(i).padStart(4, '0')}x`);
    for (const [i, name] of unknown.entries()) expect(matchArgumentName(name, declared)).toBe(declared[i]);
  });
});
