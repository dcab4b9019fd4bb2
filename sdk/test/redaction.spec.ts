import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RedactionCases } from '@toolcoach/core';
import { isSecretKeyByDefault, redactSecrets, redactSecretsInText } from '../src/redaction';

// One rule table for the server, this SDK and the Python SDK (the server's spec reads it case by case).
const cases = JSON.parse(readFileSync(join(__dirname, '..', '..', 'test', 'fixtures', 'redaction-cases.json'), 'utf8')) as RedactionCases;

describe('redaction rules shared with the server and the Python SDK', () => {
  it('treats the secret keys of the table as secret, and no other', () => {
    expect(cases.secretKeys.filter((key) => !isSecretKeyByDefault(key))).toEqual([]);
    expect(cases.keptKeys.filter((key) => isSecretKeyByDefault(key))).toEqual([]);
  });

  it('redacts each value and each text of the table as it says', () => {
    expect(cases.values.map(({ input }) => redactSecrets(input, isSecretKeyByDefault))).toEqual(cases.values.map(({ output }) => output));
    expect(cases.text.map(({ input }) => redactSecretsInText(input))).toEqual(cases.text.map(({ output }) => output));
  });
});
