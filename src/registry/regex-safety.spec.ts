import { unsafePatternReason } from './regex-safety';

describe('unsafePatternReason', () => {
  it.each(['^(a+)+$', '(a*)*', '^(\\w+\\s?)*$', '(a|aa)+', '^([a-z]+)*@', '(x+x+)+y', '(.*a){1,}', '^(\\d+)+$'])(
    'refuses %s',
    (pattern) => expect(unsafePatternReason(pattern)).toMatch(/backtrack/),
  );

  it.each(['^[a-z]+$', '^\\d{4}-\\d{2}-\\d{2}$', '^(png|jpg|gif)$', '^[A-Z]{3}(-[0-9]+)?$', '^\\+?[0-9 ]{6,20}$', '^(ab)+$', '[(+*)]+', '^\\(a+\\)+$'])(
    'accepts %s',
    (pattern) => expect(unsafePatternReason(pattern)).toBeNull(),
  );

  it('refuses backreferences, invalid expressions and very long patterns', () => {
    expect(unsafePatternReason('^(a)\\1$')).toMatch(/backreference/);
    expect(unsafePatternReason('([a-')).toBe('is not a valid regular expression');
    expect(unsafePatternReason('a'.repeat(1001))).toMatch(/longer than 1000/);
  });
});
