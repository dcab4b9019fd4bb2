import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isSecretKeyByDefault, redactSecrets, redactSecretsInText } from '../src/redaction';

// One rule table for the server, this SDK and the Python SDK.
const cases = JSON.parse(readFileSync(join(__dirname, '..', '..', 'test', 'fixtures', 'redaction-cases.json'), 'utf8')) as {
  secretKeys: string[];
  keptKeys: string[];
  values: Array<{ input: unknown; output: unknown }>;
  text: Array<{ input: string; output: string }>;
};

describe('redaction rules shared with the server and the Python SDK', () => {
  it.each(cases.secretKeys)('treats %j as a secret key', (key) => expect(isSecretKeyByDefault(key)).toBe(true));
  it.each(cases.keptKeys)('keeps %j', (key) => expect(isSecretKeyByDefault(key)).toBe(false));
  it.each(cases.values.map((c) => [JSON.stringify(c.input).slice(0, 60), c]))('redacts the value %s', (_label, c) => {
    expect(redactSecrets(c.input, isSecretKeyByDefault)).toEqual(c.output);
  });
  it.each(cases.text.map((c) => [c.input, c.output]))('redacts the text %j', (input, output) => {
    expect(redactSecretsInText(input)).toBe(output);
  });
});
