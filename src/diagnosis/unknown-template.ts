// The template of a message the categorizer left `unknown`: its variable parts masked, so that one kind of failure is
// one group whatever ids, numbers or values it carried (docs/unknown-lane.md). One hand-written scan, no regex: every
// character is read a bounded number of times (a quote looks ahead at most MAX_QUOTED_CHARS), so the time is linear
// in the scanned prefix, which is itself bounded, whatever an event sends.

/** The message's prefix that is read: a template needs its start, and the message is untrusted. */
export const MAX_TEMPLATE_SCANNED_CHARS = 2048;
/** A template as stored and shown: at most this many characters. */
export const MAX_UNKNOWN_TEMPLATE_CHARS = 300;
/** A quoted value longer than this is not one value but prose: its quotes are kept as text. */
const MAX_QUOTED_CHARS = 200;

const QUOTES = new Set(["'", '"', '`']);
// Characters that end a word without being part of it (a value in `id=42,` or `(0x1f)`)
const WORD_DELIMITERS = new Set(['=', ',', ';', '(', ')', '[', ']', '{', '}', '<', '>', '|']);
// What a word may carry at its end that belongs to the sentence: "got 7." or "at /tmp/a:"
const TRAILING_PUNCTUATION = new Set(['.', ':', '!', '?']);

/**
 * The template of a message: whitespace collapsed, and each variable part replaced by its kind: `<url>`, `<email>`,
 * `<path>`, `<time>`, `<uuid>`, `<hex>`, `<num>`, `<id>`, `<str>` (a quoted value). Deterministic; an empty message
 * is `<empty>`.
 */
export function maskUnknownMessage(message: string): string {
  const text = typeof message === 'string' ? message.slice(0, MAX_TEMPLATE_SCANNED_CHARS) : '';
  let template = '';
  let index = 0;
  while (index < text.length && template.length <= MAX_UNKNOWN_TEMPLATE_CHARS) {
    const char = text[index];
    if (isSpace(char)) {
      if (template.length > 0 && !template.endsWith(' ')) template += ' ';
      index++;
    } else if (QUOTES.has(char)) {
      const end = closingQuote(text, index);
      template += end === -1 ? char : '<str>';
      index = end === -1 ? index + 1 : end + 1;
    } else if (WORD_DELIMITERS.has(char)) {
      template += char;
      index++;
    } else {
      let end = index;
      while (end < text.length && !isSpace(text[end]) && !QUOTES.has(text[end]) && !isWordEnd(text, end)) end++;
      template += maskWord(text.slice(index, end));
      index = end;
    }
  }
  template = template.trim().slice(0, MAX_UNKNOWN_TEMPLATE_CHARS);
  return template.length === 0 ? '<empty>' : template;
}

const isSpace = (char: string) => char === ' ' || char === '\t' || char === '\n' || char === '\r' || char === '\f' || char === '\v';

/** A delimiter ends a word, except inside a url, whose query (`?a=1&b=2`) is one value. */
function isWordEnd(text: string, at: number): boolean {
  return WORD_DELIMITERS.has(text[at]) && !(text[at] === '=' && precededByUrlQuery(text, at));
}

/** Whether the word that holds `at` has a `?` after a `://` before it (looked back at most MAX_QUOTED_CHARS). */
function precededByUrlQuery(text: string, at: number): boolean {
  let sawQuery = false;
  for (let back = at - 1; back >= 0 && back >= at - MAX_QUOTED_CHARS && !isSpace(text[back]); back--) {
    if (text[back] === '?') sawQuery = true;
    if (sawQuery && text.startsWith('://', back)) return true;
  }
  return false;
}

/** The index of the quote that closes the one at `start` within MAX_QUOTED_CHARS on its line, or -1. */
function closingQuote(text: string, start: number): number {
  const quote = text[start];
  const limit = Math.min(text.length, start + 1 + MAX_QUOTED_CHARS);
  for (let at = start + 1; at < limit; at++) {
    if (text[at] === quote) return at;
    if (text[at] === '\n') return -1;
  }
  return -1;
}

/** A word with its sentence punctuation kept and its value masked. */
function maskWord(word: string): string {
  let end = word.length;
  while (end > 0 && TRAILING_PUNCTUATION.has(word[end - 1])) end--;
  const core = word.slice(0, end);
  if (core.length === 0) return word;
  return maskedKind(core) + word.slice(end);
}

const URL_SCHEME = /^[a-z][a-z0-9+.-]{0,15}:\/\/\S/i;
const EMAIL = /^[^@\s]{1,64}@[^@\s.]{1,63}(?:\.[^@\s.]{1,63}){1,8}$/;
const PATH = /^(?:~|\.{1,2})?\/[^/\s]|^[a-z]:\\/i;
const TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}|$)|^\d{1,2}:\d{2}:\d{2}(?:\.\d{1,9})?$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX = /^(?:0x[0-9a-f]{1,64}|[0-9a-f]{8,64})$/i;
const NUMBER = /^[-+]?(?:\d{1,64}(?:\.\d{0,32})?|\.\d{1,32})(?:e[-+]?\d{1,4})?(?:%|ms|s|kb|mb|gb|b)?$/i;
const HAS_DIGIT = /\d/;
const HAS_LETTER = /[a-z]/i;

/**
 * The placeholder of a word that is a variable value, or the word itself. Each test is an anchored pattern with
 * bounded repetition and no nested quantifiers, on a word of at most MAX_TEMPLATE_SCANNED_CHARS: no backtracking blow-up.
 */
function maskedKind(word: string): string {
  if (URL_SCHEME.test(word)) return '<url>';
  if (word.includes('@') && EMAIL.test(word)) return '<email>';
  if (PATH.test(word)) return '<path>';
  if (TIME.test(word)) return '<time>';
  if (UUID.test(word)) return '<uuid>';
  if (NUMBER.test(word)) return '<num>';
  // a hex run needs a digit, or "deadbeef" and "accepted" would both be values
  if (HEX.test(word) && (word.startsWith('0x') || HAS_DIGIT.test(word))) return '<hex>';
  if (isId(word)) return '<id>';
  return word;
}

/**
 * An identifier: letters and at least three digits in a long word (`call_8f3k2a9`, `req-20261127-17`), or a long
 * word with a digit after a separator. Names of types keep their digits (`int32`, `utf8`, `Base64`).
 */
function isId(word: string): boolean {
  if (word.length < 6 || !HAS_LETTER.test(word) || !HAS_DIGIT.test(word)) return false;
  let digits = 0;
  for (const char of word) if (char >= '0' && char <= '9') digits++;
  return digits >= 3 || /[-_:.]\d/.test(word);
}
