import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RedactionCases } from '@toolcoach/core';
import { isSecretKey, REDACTED, redactSecrets, redactSecretsInText } from './secret-redaction';

// One rule table for the server and both SDKs.
const cases = JSON.parse(readFileSync(join(__dirname, '..', '..', 'test', 'fixtures', 'redaction-cases.json'), 'utf8')) as RedactionCases;

describe('redaction rules shared with both SDKs', () => {
  it.each(cases.secretKeys)('treats %j as a secret key', (key) => expect(isSecretKey(key)).toBe(true));
  it.each(cases.keptKeys)('keeps %j', (key) => expect(isSecretKey(key)).toBe(false));
  it.each(cases.values.map((c) => [JSON.stringify(c.input).slice(0, 60), c]))('redacts the value %s', (_label, c) => {
    expect(redactSecrets(c.input)).toEqual(c.output);
  });
  it.each(cases.text.map((c) => [c.input, c.output]))('redacts the text %j', (input, output) => {
    expect(redactSecretsInText(input)).toBe(output);
  });
});

describe('redactSecrets', () => {
  it('replaces string and object values under secret keys at any depth, keeping the rest', () => {
    const redacted = redactSecrets({
      city: 'Paris',
      login: { password: 'hunter2', user: 'bob' },
      headers: [{ Authorization: 'Bearer abc' }],
      credentials: { key: 'x' },
    });
    expect(redacted).toEqual({
      city: 'Paris',
      login: { password: REDACTED, user: 'bob' },
      headers: [{ Authorization: REDACTED }],
      credentials: REDACTED,
    });
  });

  it('keeps numbers and booleans under token-like keys, such as max_tokens', () => {
    expect(redactSecrets({ max_tokens: 512, use_token: true, token: 'abc' })).toEqual({
      max_tokens: 512,
      use_token: true,
      token: REDACTED,
    });
  });

  it('returns a value without secrets as it is and copies only the branch that holds one', () => {
    const clean = { city: 'Paris', tags: ['a', { n: 1 }] };
    expect(redactSecrets(clean)).toBe(clean);
    const mixed = { keep: { n: 1 }, login: { password: 'x' } };
    const redacted = redactSecrets(mixed) as typeof mixed;
    expect(redacted).toEqual({ keep: { n: 1 }, login: { password: REDACTED } });
    expect(redacted.keep).toBe(mixed.keep);
    expect(mixed.login.password).toBe('x');
  });

  it('keeps the keys before and after the redacted one, in order', () => {
    expect(JSON.stringify(redactSecrets({ a: 1, b: 'x', secret: 's', c: [2], d: null }))).toBe(
      `{"a":1,"b":"x","secret":"${REDACTED}","c":[2],"d":null}`,
    );
  });

  it('judges keys the same after more distinct keys than it remembers have been seen', () => {
    for (let index = 0; index < 25_000; index++) isSecretKey(`field_${index}`);
    expect(redactSecrets({ password: 'x', field_1: 'y' })).toEqual({ password: REDACTED, field_1: 'y' });
    expect(isSecretKey(`${'x'.repeat(200)}_token`)).toBe(true);
    expect(isSecretKey('x'.repeat(200))).toBe(false);
  });

  it('does not turn a __proto__ key into a prototype', () => {
    const redacted = redactSecrets(JSON.parse('{"__proto__": {"password": "x"}}')) as object;
    expect(Object.getPrototypeOf(redacted)).toBe(Object.prototype);
    expect(JSON.stringify(redacted)).toBe(`{"__proto__":{"password":"${REDACTED}"}}`);
  });
});

describe('redactSecretsInText', () => {
  it('redacts key-value pairs in arguments that are not valid JSON', () => {
    expect(redactSecretsInText('{"user": "bob", "password": "hunter2", "n": 3')).toBe(`{"user": "bob", "password": "${REDACTED}", "n": 3`);
    expect(redactSecretsInText('api_key=abc123&q=x')).toBe(`api_key=${REDACTED}&q=x`);
  });
});

describe('redactSecretsInText on hostile text', () => {
  // each would take seconds to minutes with a backtracking scan; a linear one reads a megabyte in milliseconds
  const megabyte = 1_000_000;
  it.each([
    ['separators', ':'.repeat(megabyte)],
    ['keys without values', 'password '.repeat(megabyte / 9)],
    ['secret keys before separators', 'token='.repeat(megabyte / 6)],
    ['unclosed quotes', 'password: "'.repeat(megabyte / 11)],
    ['escaped quotes', `password: \\"${'\\'.repeat(megabyte)}`],
    ['long keys', `${'k'.repeat(megabyte)}=v`],
    ['URL schemes', '://a:b'.repeat(megabyte / 6)],
    ['PEM headers', '-----BEGIN PRIVATE KEY-----'.repeat(megabyte / 27)],
    ['token prefixes', 'sk-'.repeat(megabyte / 3)],
    ['brackets', `secret=${'['.repeat(megabyte)}`],
  ])('reads a megabyte of %s in linear time', (_label, text) => {
    const startedMs = performance.now();
    redactSecretsInText(text);
    expect(performance.now() - startedMs).toBeLessThan(1_000);
  });
});
