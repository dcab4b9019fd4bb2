import { isSecretKey, REDACTED, redactSecrets, redactSecretsInText } from './secret-redaction';

describe('isSecretKey', () => {
  it.each(['password', 'db_password', 'passwd', 'apiKey', 'api_key', 'X-Api-Key', 'authorization', 'access_token', 'refreshToken', 'client_secret', 'cookie', 'credentials', 'private_key'])(
    'treats %s as secret',
    (key) => expect(isSecretKey(key)).toBe(true),
  );

  it.each(['number', 'numbers', 'query', 'passenger', 'compass_heading', 'author'])('keeps %s', (key) => {
    expect(isSecretKey(key)).toBe(false);
  });
});

describe('redactSecrets', () => {
  it('replaces string and object values under secret keys at any depth, keeping the rest', () => {
    const redacted = redactSecrets({
      city: 'Paris',
      auth: { password: 'hunter2', user: 'bob' },
      headers: [{ Authorization: 'Bearer abc' }],
      credentials: { key: 'x' },
    });
    expect(redacted).toEqual({
      city: 'Paris',
      auth: { password: REDACTED, user: 'bob' },
      headers: [{ Authorization: REDACTED }],
      credentials: REDACTED,
    });
  });

  it('keeps numbers and booleans under token-like keys, such as max_tokens', () => {
    expect(redactSecrets({ max_tokens: 512, use_token: true, token: 'abc' })).toEqual({ max_tokens: 512, use_token: true, token: REDACTED });
  });

  it('returns a value without secrets as it is and copies only the branch that holds one', () => {
    const clean = { city: 'Paris', tags: ['a', { n: 1 }] };
    expect(redactSecrets(clean)).toBe(clean);
    const mixed = { keep: { n: 1 }, auth: { password: 'x' } };
    const redacted = redactSecrets(mixed) as typeof mixed;
    expect(redacted).toEqual({ keep: { n: 1 }, auth: { password: REDACTED } });
    expect(redacted.keep).toBe(mixed.keep);
    expect(mixed.auth.password).toBe('x');
  });

  it('does not turn a __proto__ key into a prototype', () => {
    const redacted = redactSecrets(JSON.parse('{"__proto__": {"password": "x"}}')) as object;
    expect(Object.getPrototypeOf(redacted)).toBe(Object.prototype);
    expect(JSON.stringify(redacted)).toBe(`{"__proto__":{"password":"${REDACTED}"}}`);
  });
});

describe('redactSecretsInText', () => {
  it('redacts key-value pairs in arguments that are not valid JSON', () => {
    expect(redactSecretsInText('{"user": "bob", "password": "hunter2", "n": 3')).toBe(
      `{"user": "bob", "password": "${REDACTED}", "n": 3`,
    );
    expect(redactSecretsInText('api_key=abc123&q=x')).toBe(`api_key=${REDACTED}&q=x`);
  });
});
