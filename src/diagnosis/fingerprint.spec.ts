import { computeFingerprint, normalizeMessageTemplate } from './fingerprint';

describe('normalizeMessageTemplate', () => {
  it.each([
    ['n must be <= 20, got 25', 'n must be <= 20, got 31'],
    ["Tool 'get_weather' not found", "Tool 'search_web' not found"],
    ['user 6f1c2b9e-8a7d-4c3b-9e2f-1a2b3c4d5e6f not allowed', 'user 0b7e1a44-1111-4c3b-8e2f-99aa3c4d5e6f not allowed'],
    ['ratio 0.75 exceeds 0.5', 'ratio 1.25 exceeds 0.9'],
    ['connect ECONNREFUSED 127.0.0.1:5432', 'connect ECONNREFUSED 10.0.0.7:6379'],
    ['Request to https://api.example.com/v1/x?id=1 failed', 'Request to https://api.other.io/v2/y failed'],
    ['object at 0x7f3a2c1d5e90 is closed', 'object at 0x7f00ffee1234 is closed'],
    ['expired at 2024-05-01T10:00:00Z', 'expired at 2025-12-31T23:59:59Z'],
    ['mail bob@example.com bounced', 'mail alice@corp.example.org bounced'],
    ['Value cannot be null. (Parameter "recipient")', 'Value cannot be null. (Parameter "sender")'],
    ['commit 3ab55a9f01 not found', 'commit 9ff00c1d22 not found'],
    ["Invalid value for parameter 'count': 7. Expected one of [1, 2].", "Invalid value for parameter 'n': 9. Expected one of [3, 4]."],
    ['got 2.5.', 'got 7.25.'],
  ])('gives %j and %j the same template', (first, second) => {
    expect(normalizeMessageTemplate(first)).toBe(normalizeMessageTemplate(second));
  });

  it('keeps different wordings apart', () => {
    expect(normalizeMessageTemplate('n must be <= 20')).not.toBe(normalizeMessageTemplate('n must be >= 0'));
  });

  it('replaces values with named placeholders', () => {
    expect(normalizeMessageTemplate("Index 5 out of bounds for length 3 in 'items' at 2024-05-01")).toBe(
      'Index <int> out of bounds for length <int> in <str> at <date>',
    );
    expect(normalizeMessageTemplate('ratio 0.75 and id 0xdeadbeef')).toBe('ratio <float> and id <hex>');
  });

  it('keeps the first two non-empty lines and marks the cut', () => {
    expect(normalizeMessageTemplate('first line\n\n  second line  \nthird line\nfourth')).toBe('first line second line ...');
  });

  it('collapses whitespace and caps the length at 512', () => {
    expect(normalizeMessageTemplate('a    b\t\tc')).toBe('a b c');
    expect(normalizeMessageTemplate('word '.repeat(1000)).length).toBeLessThanOrEqual(512);
  });

  it('does not keep identifiers that merely contain digits apart from their words', () => {
    expect(normalizeMessageTemplate('utf8 decoding failed')).toBe('utf8 decoding failed');
  });
});

describe('computeFingerprint', () => {
  const parts = {
    tool: 'factorial',
    category: 'out_of_range',
    subtype: 'above_maximum',
    argumentPath: '/n',
    messageTemplate: 'n must be <= <int>',
  };

  it('is a 40-character sha1 hex digest', () => {
    expect(computeFingerprint(parts)).toMatch(/^[0-9a-f]{40}$/);
  });

  it('is stable for equal parts', () => {
    expect(computeFingerprint({ ...parts })).toBe(computeFingerprint(parts));
  });

  it.each(['tool', 'category', 'subtype', 'argumentPath', 'messageTemplate'] as const)('changes when %s changes', (field) => {
    expect(computeFingerprint({ ...parts, [field]: `${parts[field]}x` })).not.toBe(computeFingerprint(parts));
  });

  it('does not confuse a null subtype with an empty path shift', () => {
    const a = computeFingerprint({ ...parts, subtype: null, argumentPath: '/n' });
    const b = computeFingerprint({ ...parts, subtype: '/n', argumentPath: null });
    expect(a).not.toBe(b);
  });
});
