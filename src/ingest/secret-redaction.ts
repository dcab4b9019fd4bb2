/**
 * Defence in depth: SDKs redact secrets before events leave the agent, and the server redacts again before storage,
 * so an old or hand-written client cannot put credentials into our database.
 */
import { REDACTED, redactSecretsInText as redactInText } from '@toolcoach/core';

export { REDACTED };

// The rules are shared with both SDKs through test/fixtures/redaction-cases.json; change all three together.
// Keys are compared lower-cased without '-', '_' and blanks: password, secret, token, api key, access/private key,
// authorization, credential, cookie anywhere; auth or pwd at the end; pass alone.
const SECRET_KEY =
  /password|passwd|passphrase|secret|token|apikey|accesskey|privatekey|authorization|credential|cookie|(?:auth|pwd)$|^pass$/;

interface KeyJudgement {
  isSecret: boolean;
  /** the key as stored: itself, unless its own text holds a secret */
  storedAs: string;
}

export function isSecretKey(key: string): boolean {
  return judgeKey(key).isSecret;
}

function judgeKey(key: string): KeyJudgement {
  if (key.length > MAX_REMEMBERED_KEY_CHARS) return freshJudgement(key);
  let judgement = rememberedKeys.get(key);
  if (judgement === undefined) {
    judgement = freshJudgement(key);
    // senders choose the keys: the memory is bounded, and starts over when full
    if (rememberedKeys.size >= MAX_REMEMBERED_KEYS) rememberedKeys.clear();
    rememberedKeys.set(key, judgement);
  }
  return judgement;
}

// the text scan judges the key words it finds with isSecretKey: those are shorter than `key`, so this ends
const freshJudgement = (key: string): KeyJudgement => ({
  isSecret: SECRET_KEY.test(normalizedKey(key)),
  storedAs: redactInText(key, isSecretKey),
});

const normalizedKey = (key: string) => key.toLowerCase().replace(/[-_\s]/g, '');

// Events of one agent repeat the same few argument and result keys, and every key of every event is judged: lowering
// and matching each anew was a measurable share of the API's CPU per event (issue 18).
const rememberedKeys = new Map<string, KeyJudgement>();
const MAX_REMEMBERED_KEYS = 10_000;
const MAX_REMEMBERED_KEY_CHARS = 100;

/** Secrets inside one text (see @toolcoach/core, secrets-in-text.ts), with the key rules above. */
export function redactSecretsInText(text: string): string {
  return redactInText(text, isSecretKey);
}

/**
 * Replaces the value under every secret-looking key, and the secrets inside every string (keys included), at any
 * depth. Numbers and booleans are kept: `max_tokens: 512` is a limit, not a credential, and the analytics need it.
 */
export function redactSecrets(value: unknown): unknown {
  if (typeof value === 'string') return redactSecretsInText(value);
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
    const { isSecret, storedAs } = judgeKey(key);
    const redacted =
      isSecret && child !== null && typeof child !== 'number' && typeof child !== 'boolean' ? REDACTED : redactSecrets(child);
    if (out === undefined && (redacted !== child || storedAs !== key)) {
      out = {};
      for (let kept = 0; kept < index; kept++) defineOwn(out, keys[kept], object[keys[kept]]);
    }
    if (out !== undefined) defineOwn(out, storedAs, redacted);
  }
  return out ?? value;
}

/** defineProperty, not assignment: a `__proto__` key stays a plain key and never sets a prototype. */
function defineOwn(target: Record<string, unknown>, key: string, value: unknown) {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
