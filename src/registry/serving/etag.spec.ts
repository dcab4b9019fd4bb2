import { matchesIfNoneMatch, strongEtag } from './etag';

describe('strongEtag', () => {
  it('is a quoted hash that changes with the body', () => {
    expect(strongEtag('{"a":1}')).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(strongEtag('{"a":1}')).toBe(strongEtag('{"a":1}'));
    expect(strongEtag('{"a":1}')).not.toBe(strongEtag('{"a":2}'));
  });
});

describe('matchesIfNoneMatch', () => {
  const etag = '"abc"';
  it.each([
    ['the same strong validator', '"abc"', true],
    ['a weak form of it', 'W/"abc"', true],
    ['a list containing it', '"x", W/"y", "abc"', true],
    ['a star', '*', true],
    ['another validator', '"abd"', false],
    ['an unquoted value', 'abc', false],
    ['an empty header', '', false],
    ['no header', undefined, false],
  ])('answers for %s', (_, header, expected) => {
    expect(matchesIfNoneMatch(header, etag)).toBe(expected);
  });
});
