export const REDACTED = '[REDACTED]';

/**
 * Keys whose values look secret, compared lower-cased with `-`, `_` and blanks removed. The same rules as the server and
 * the Python SDK, checked by all three against test/fixtures/redaction-cases.json: password, secret, token, api key,
 * access/private key, authorization, credential, cookie anywhere; auth or pwd at the end; pass alone.
 */
const SECRET_KEY =
  /password|passwd|passphrase|secret|token|apikey|accesskey|privatekey|authorization|credential|cookie|(?:auth|pwd)$|^pass$/;

// "password": "...", password=..., Authorization: Bearer ... inside text (arguments that are not JSON, messages)
const SECRET_IN_TEXT =
  /((?:pass(?:word|wd|phrase)?|secret|token|api[-_ ]?key|access[-_ ]?key|private[-_ ]?key|authorization|credentials?|cookie)["']?\s*[:=]\s*["']?(?:(?:Bearer|Basic|Token)[ \t]+)?)([^"',}&\s]{1,4096})/gi;

export type SecretKeyMatcher = (key: string) => boolean;

export const isSecretKeyByDefault: SecretKeyMatcher = (key) => SECRET_KEY.test(key.toLowerCase().replace(/[-_\s]/g, ''));

/** `password=hunter2` and `'api_key': 'sk-...'` inside free text. */
export function redactSecretsInText(text: string): string {
  return text.replace(SECRET_IN_TEXT, (_, prefix: string) => `${prefix}${REDACTED}`);
}

// Deeper values are replaced whole: the server refuses bodies nested this deep anyway, and the walk must stay finite
// (a circular value ends here instead of looping).
const MAX_DEPTH = 32;

/**
 * A copy of `value` in which every string, object or array under a secret-looking key is replaced; the input is never
 * modified. Numbers, booleans and null are kept: `max_tokens: 512` is a limit, not a credential.
 */
export function redactSecrets(value: unknown, isSecretKey: SecretKeyMatcher, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return REDACTED;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return redactSecrets(toJSON.call(value), isSecretKey, depth + 1);
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, isSecretKey, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const isSecret = isSecretKey(key) && item !== null && typeof item !== 'number' && typeof item !== 'boolean';
    copy[key] = isSecret ? REDACTED : redactSecrets(item, isSecretKey, depth + 1);
  }
  return copy;
}
