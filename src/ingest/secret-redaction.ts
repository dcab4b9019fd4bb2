/**
 * Defence in depth: SDKs redact secrets before events leave the agent, and the server redacts again before storage,
 * so an old or hand-written client cannot put credentials into our database.
 */

export const REDACTED = '[REDACTED]';

// The rules are shared with both SDKs through test/fixtures/redaction-cases.json; change all three together.
// Keys are compared lower-cased without '-', '_' and blanks: password, secret, token, api key, access/private key,
// authorization, credential, cookie anywhere; auth or pwd at the end; pass alone.
const SECRET_KEY =
  /password|passwd|passphrase|secret|token|apikey|accesskey|privatekey|authorization|credential|cookie|(?:auth|pwd)$|^pass$/;

// in text (arguments the model produced that are not JSON, messages): "password": "...", password=..., Bearer ...
const SECRET_IN_TEXT =
  /((?:pass(?:word|wd|phrase)?|secret|token|api[-_ ]?key|access[-_ ]?key|private[-_ ]?key|authorization|credentials?|cookie)["']?\s*[:=]\s*["']?(?:(?:Bearer|Basic|Token)[ \t]+)?)([^"',}&\s]{1,4096})/gi;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key.toLowerCase().replace(/[-_\s]/g, ''));
}

/**
 * Replaces the value under every secret-looking key, at any depth. Numbers and booleans are kept: `max_tokens: 512`
 * is a limit, not a credential, and the analytics need it.
 */
export function redactSecrets(value: unknown): unknown {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    // copy on write: a value without secrets (nearly all of them) is returned as it is, not copied
    let out: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const child = redactSecrets(value[index]);
      if (child !== value[index]) (out ??= value.slice())[index] = child;
    }
    return out ?? value;
  }
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  const redactedOf = ([key, child]: [string, unknown]) =>
    isSecretKey(key) && child !== null && typeof child !== 'number' && typeof child !== 'boolean' ? REDACTED : redactSecrets(child);
  if (entries.every((entry) => redactedOf(entry) === entry[1])) return value;
  const out: Record<string, unknown> = {};
  for (const entry of entries) {
    Object.defineProperty(out, entry[0], { value: redactedOf(entry), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

export function redactSecretsInText(text: string): string {
  return text.replace(SECRET_IN_TEXT, (_, prefix: string) => `${prefix}${REDACTED}`);
}
