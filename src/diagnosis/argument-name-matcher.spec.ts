import { damerauLevenshtein, matchArgumentName } from './argument-name-matcher';

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
