import { REDACTED, redactSecretsInText as redactInText } from '@toolcoach/core';

export { REDACTED };

/**
 * Keys whose values look secret, compared lower-cased with `-`, `_` and blanks removed. The same rules as the server and
 * the Python SDK, checked by all three against test/fixtures/redaction-cases.json: password, secret, token, api key,
 * access/private key, authorization, credential, cookie anywhere; auth or pwd at the end; pass alone.
 */
const SECRET_KEY =
  /password|passwd|passphrase|secret|token|apikey|accesskey|privatekey|authorization|credential|cookie|(?:auth|pwd)$|^pass$/;

export type SecretKeyMatcher = (key: string) => boolean;

export const isSecretKeyByDefault: SecretKeyMatcher = (key) => SECRET_KEY.test(key.toLowerCase().replace(/[-_\s]/g, ''));

/**
 * Secrets inside free text (see @toolcoach/core, secrets-in-text.ts): `password=hunter2` and `'api_key': 'sk-...'`, JSON text, URL
 * passwords, private keys and well-known token shapes.
 */
export function redactSecretsInText(text: string, isSecretKey: SecretKeyMatcher = isSecretKeyByDefault): string {
  return redactInText(text, isSecretKey);
}

// Deeper values are replaced whole: the server refuses bodies nested this deep anyway, and the walk must stay finite
// (a circular value ends here instead of looping).
const MAX_DEPTH = 32;

/**
 * A copy of `value` in which every string, object or array under a secret-looking key is replaced, and every other
 * string (keys included) has the secrets inside its text redacted; the input is never modified. Numbers, booleans and
 * null are kept: `max_tokens: 512` is a limit, not a credential.
 */
export function redactSecrets(value: unknown, isSecretKey: SecretKeyMatcher, depth = 0): unknown {
  if (typeof value === 'string') return redactInText(value, isSecretKey);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return REDACTED;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return redactSecrets(toJSON.call(value), isSecretKey, depth + 1);
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, isSecretKey, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const isSecret = isSecretKey(key) && item !== null && typeof item !== 'number' && typeof item !== 'boolean';
    Object.defineProperty(copy, redactInText(key, isSecretKey), {
      value: isSecret ? REDACTED : redactSecrets(item, isSecretKey, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}
