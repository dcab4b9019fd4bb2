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
  if (key.length > MAX_REMEMBERED_KEY_CHARS) return SECRET_KEY.test(normalizedKey(key));
  let isSecret = rememberedKeys.get(key);
  if (isSecret === undefined) {
    isSecret = SECRET_KEY.test(normalizedKey(key));
    // senders choose the keys: the memory is bounded, and starts over when full
    if (rememberedKeys.size >= MAX_REMEMBERED_KEYS) rememberedKeys.clear();
    rememberedKeys.set(key, isSecret);
  }
  return isSecret;
}

const normalizedKey = (key: string) => key.toLowerCase().replace(/[-_\s]/g, '');

// Events of one agent repeat the same few argument and result keys, and every key of every event is judged: lowering
// and matching each anew was a measurable share of the API's CPU per event (issue 18).
const rememberedKeys = new Map<string, boolean>();
const MAX_REMEMBERED_KEYS = 10_000;
const MAX_REMEMBERED_KEY_CHARS = 100;

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
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  let out: Record<string, unknown> | undefined;
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index];
    const child = object[key];
    const redacted =
      isSecretKey(key) && child !== null && typeof child !== 'number' && typeof child !== 'boolean' ? REDACTED : redactSecrets(child);
    if (out === undefined && redacted !== child) {
      out = {};
      for (let kept = 0; kept < index; kept++) defineOwn(out, keys[kept], object[keys[kept]]);
    }
    if (out !== undefined) defineOwn(out, key, redacted);
  }
  return out ?? value;
}

/** defineProperty, not assignment: a `__proto__` key stays a plain key and never sets a prototype. */
function defineOwn(target: Record<string, unknown>, key: string, value: unknown) {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

export function redactSecretsInText(text: string): string {
  return text.replace(SECRET_IN_TEXT, (_, prefix: string) => `${prefix}${REDACTED}`);
}
