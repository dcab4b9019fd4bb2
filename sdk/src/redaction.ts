export const REDACTED = '[REDACTED]';

/**
 * Keys whose values look secret, compared with case, `_` and `-` removed. Suffix matches for "token"/"auth" keep
 * `access_token` and `x-auth` out while leaving `max_tokens` or `author` alone, which the diagnosis needs to see.
 */
const SECRET_KEY = /password|passwd|passphrase|secret|apikey|authorization|credential|privatekey|(token|auth|pwd|cookie)$/;

export type SecretKeyMatcher = (key: string) => boolean;

export const isSecretKeyByDefault: SecretKeyMatcher = (key) => SECRET_KEY.test(key.toLowerCase().replace(/[-_\s]/g, ''));

// Deeper values are replaced whole: a tool's arguments are never this deep, and the walk must stay cheap and finite.
const MAX_DEPTH = 12;

/** A copy of `value` in which every value under a secret-looking key is replaced; the input is never modified. */
export function redactSecrets(value: unknown, isSecretKey: SecretKeyMatcher, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return REDACTED;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return redactSecrets(toJSON.call(value), isSecretKey, depth + 1);
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, isSecretKey, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    copy[key] = isSecretKey(key) ? REDACTED : redactSecrets(item, isSecretKey, depth + 1);
  }
  return copy;
}
