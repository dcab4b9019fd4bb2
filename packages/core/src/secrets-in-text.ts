/**
 * Secrets inside free text: `password=hunter2`, `"api_key": "sk-..."` in JSON text (an MCP result's content block,
 * an error message), `user:pass@` in a URL, a PEM private key, and tokens whose shape gives them away without any key
 * name (`sk-...`, `ghp_...`, `AKIA...`, `xoxb-...`, JWTs, `Bearer ...`).
 *
 * One source for the server (src/ingest) and the SDK (bundled into @toolcoach/sdk); sdk-python/toolcoach/redaction.py
 * keeps the same rules, pinned by test/fixtures/redaction-cases.json: change both together. Senders choose the text, so no backtracking regex
 * reads it: separators, URLs and PEM headers are found with indexOf, token prefixes with one case-sensitive literal
 * alternation, and each candidate is judged with a bounded look back or a forward read that the scan then skips. A
 * text with nothing to redact is returned as it is, uncopied; without ':', '=' or a token prefix it costs a few
 * indexOf calls and one regex test.
 */

export const REDACTED = '[REDACTED]';

/** Whether a key name (compared lower-cased without '-', '_' and blanks) holds a secret. */
export type SecretKeyTest = (key: string) => boolean;

export function redactSecretsInText(text: string, isSecretKey: SecretKeyTest): string {
  let out = text.includes('-----BEGIN') ? redactPrivateKeys(text) : text;
  if (out.includes('://')) out = redactUrlPasswords(out);
  out = redactKeyValues(out, isSecretKey);
  return TOKEN_PREFIX.test(out) ? redactTokens(out) : out;
}

// A key in text is at most this long (its last characters count), and at most this many quotes, backslashes and
// blanks stand between it and its `:` or `=`: each separator costs a bounded look back.
const MAX_KEY_CHARS = 128;
const MAX_GAP_CHARS = 4;

/** `key: value`, `key=value`, `"key": "value"`, `\"key\":\"value\"` under a secret key. */
function redactKeyValues(text: string, isSecretKey: SecretKeyTest): string {
  let out = '';
  let copiedUpTo = 0;
  let colon = text.indexOf(':');
  let equals = text.indexOf('=');
  while (colon !== -1 || equals !== -1) {
    const separator = colon === -1 ? equals : equals === -1 ? colon : Math.min(colon, equals);
    let next = separator + 1;
    // a URL's scheme is no key
    const isKey = !(separator === colon && text.charCodeAt(next) === SLASH) && isSecretKeyBefore(text, separator, isSecretKey);
    const value = isKey ? valueAfter(text, next) : null;
    if (value !== null) {
      out += text.slice(copiedUpTo, value.start) + REDACTED;
      copiedUpTo = next = value.end;
    }
    if (colon !== -1 && colon < next) colon = text.indexOf(':', next);
    if (equals !== -1 && equals < next) equals = text.indexOf('=', next);
  }
  return copiedUpTo === 0 ? text : out + text.slice(copiedUpTo);
}

function isSecretKeyBefore(text: string, separator: number, isSecretKey: SecretKeyTest): boolean {
  let end = separator;
  while (end > 0 && separator - end < MAX_GAP_CHARS && isGapChar(text.charCodeAt(end - 1))) end--;
  const start = keyStart(text, end);
  if (start === end) return false;
  if (isSecretKey(text.slice(start, end))) return true;
  // two words: "api key: ...", "access key = ..."
  if (start < 2 || text.charCodeAt(start - 1) !== SPACE) return false;
  const firstStart = keyStart(text, start - 1);
  return firstStart < start - 1 && isSecretKey(text.slice(firstStart, end));
}

function keyStart(text: string, end: number): number {
  let start = end;
  while (start > 0 && end - start < MAX_KEY_CHARS && isKeyChar(text.charCodeAt(start - 1))) start--;
  return start;
}

/**
 * Where the value after a separator starts and ends; null when there is nothing to redact. A quoted value runs to its
 * closing quote (or the line's end), `{...}` and `[...]` to their closing bracket, anything else to the next blank,
 * quote, comma, `;`, `&`, `}` or backslash. An unquoted number, true, false or null is kept, as under a secret key of
 * an object: `max_tokens=512` is a limit, not a credential.
 */
function valueAfter(text: string, from: number): { start: number; end: number } | null {
  let start = from;
  while (isBlank(text.charCodeAt(start))) start++;
  let quote = '';
  let opening = start;
  // JSON text inside a JSON string (inside another...) escapes its quotes: \", \\\"
  while (text.charCodeAt(opening) === BACKSLASH && opening - start < MAX_GAP_CHARS) opening++;
  if (isQuote(text.charCodeAt(opening))) quote = text.slice(start, opening + 1);
  start += quote.length;
  start = afterAuthScheme(text, start);
  let end: number;
  if (quote !== '') end = quotedEnd(text, start, quote);
  else if (text.charCodeAt(start) === OPEN_BRACE || text.charCodeAt(start) === OPEN_BRACKET) end = bracketEnd(text, start);
  else {
    end = start;
    while (end < text.length && !isValueEnd(text.charCodeAt(end))) end++;
    if (isJsonLiteral(text.slice(start, end))) return null;
  }
  return end > start ? { start, end } : null;
}

const AUTH_SCHEMES = ['bearer', 'basic', 'token'];

/** `Bearer abc` keeps its scheme; a lone `Bearer` is the value itself. */
function afterAuthScheme(text: string, start: number): number {
  for (const scheme of AUTH_SCHEMES) {
    if (text.slice(start, start + scheme.length).toLowerCase() !== scheme) continue;
    let next = start + scheme.length;
    if (!isBlank(text.charCodeAt(next))) return start;
    while (isBlank(text.charCodeAt(next))) next++;
    return next < text.length && !isValueEnd(text.charCodeAt(next)) ? next : start;
  }
  return start;
}

/** An escaped quote (`\"`) closes a value opened by one; a plain quote closes a value opened by a plain quote. */
function quotedEnd(text: string, start: number, quote: string): number {
  const isEscaped = quote.length > 1;
  const quoteChar = quote.charCodeAt(quote.length - 1);
  for (let index = start; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (char === NEWLINE || char === CARRIAGE_RETURN) return index;
    if (char === BACKSLASH) {
      let next = index + 1;
      while (text.charCodeAt(next) === BACKSLASH) next++;
      if (isEscaped && text.charCodeAt(next) === quoteChar) return index;
      index = isEscaped ? next - 1 : index + 1;
    } else if (char === quoteChar && !isEscaped) return index;
  }
  return text.length;
}

/** The end of the `{...}` or `[...]` at `start`, skipping brackets inside strings; the text's end when unclosed. */
function bracketEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (char === BACKSLASH) index++;
    else if (char === DOUBLE_QUOTE) inString = !inString;
    else if (inString) continue;
    else if (char === OPEN_BRACE || char === OPEN_BRACKET) depth++;
    else if ((char === CLOSE_BRACE || char === CLOSE_BRACKET) && --depth === 0) return index + 1;
  }
  return text.length;
}

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const isJsonLiteral = (value: string) => value === 'true' || value === 'false' || value === 'null' || JSON_NUMBER.test(value);

/** `scheme://user:password@host`: the password goes. */
function redactUrlPasswords(text: string): string {
  let out = '';
  let copiedUpTo = 0;
  for (let scheme = text.indexOf('://'); scheme !== -1; scheme = text.indexOf('://', scheme + 3)) {
    let colon = -1;
    let index = scheme + 3;
    // the authority ends at the next '/', so no character is read twice: the next '://' starts with one
    for (; index < text.length && !isAuthorityEnd(text.charCodeAt(index)); index++) {
      if (colon === -1 && text.charCodeAt(index) === COLON) colon = index;
    }
    if (text.charCodeAt(index) !== AT || colon === -1 || colon + 1 === index) continue;
    out += text.slice(copiedUpTo, colon + 1) + REDACTED;
    copiedUpTo = index;
  }
  return copiedUpTo === 0 ? text : out + text.slice(copiedUpTo);
}

/** The body of `-----BEGIN ... PRIVATE KEY-----` up to its `-----END`. */
function redactPrivateKeys(text: string): string {
  let out = '';
  let copiedUpTo = 0;
  for (let begin = text.indexOf('-----BEGIN'); begin !== -1; begin = text.indexOf('-----BEGIN', begin + 10)) {
    const headerEnd = text.indexOf('-----', begin + 10);
    if (headerEnd === -1) break;
    if (headerEnd - begin > 80 || !text.slice(begin, headerEnd).includes('PRIVATE KEY')) continue;
    const bodyStart = headerEnd + 5;
    const end = text.indexOf('-----END', bodyStart);
    const bodyEnd = end === -1 ? text.length : end;
    out += text.slice(copiedUpTo, bodyStart) + REDACTED;
    copiedUpTo = bodyEnd;
    if (end === -1) break;
    begin = end;
  }
  return copiedUpTo === 0 ? text : out + text.slice(copiedUpTo);
}

// Prefixes of well-known credentials, found by one literal alternation (linear); the token's own characters are then
// read by a plain loop and judged by length (and a digit where the prefix alone is a common word part).
const TOKEN_PREFIX = /sk-|sk_live_|sk_test_|rk_live_|rk_test_|gh[pousr]_|github_pat_|glpat-|xox[abposr]-|A[KS]IA|AIza|eyJ|[Bb]earer[ \t]/;

interface TokenShape {
  minChars: number;
  needsDigit?: boolean;
  exactChars?: number;
  /** a JWT: three dot-separated parts */
  isJwt?: boolean;
  /** `Bearer <token>`: the scheme stays */
  keepsPrefix?: boolean;
  chars: (char: number) => boolean;
}

const base64UrlChar = (char: number) => isAlphanumeric(char) || char === UNDERSCORE || char === DASH;
const OPAQUE: TokenShape = { minChars: 16, chars: base64UrlChar };
const OPENAI_OR_ANTHROPIC: TokenShape = { minChars: 20, needsDigit: true, chars: base64UrlChar };
const GITHUB_FINE_GRAINED: TokenShape = { minChars: 40, chars: base64UrlChar };
const GITLAB: TokenShape = { minChars: 20, chars: base64UrlChar };
const GOOGLE: TokenShape = { minChars: 30, chars: base64UrlChar };
const JWT: TokenShape = { minChars: 20, isJwt: true, chars: (char) => base64UrlChar(char) || char === DOT };
const GITHUB: TokenShape = { minChars: 30, chars: base64UrlChar };
const SLACK: TokenShape = { minChars: 10, chars: base64UrlChar };
const AWS: TokenShape = { minChars: 16, exactChars: 16, chars: (char) => isUpperOrDigit(char) };
const BEARER: TokenShape = {
  minChars: 8,
  needsDigit: true,
  keepsPrefix: true,
  chars: (char) => base64UrlChar(char) || isTokenPunctuation(char),
};

/** The shape a matched prefix announces. */
function shapeOf(prefix: string): TokenShape {
  switch (prefix.slice(0, 3)) {
    case 'sk-':
      return OPENAI_OR_ANTHROPIC;
    case 'git':
      return GITHUB_FINE_GRAINED;
    case 'glp':
      return GITLAB;
    case 'xox':
      return SLACK;
    case 'AKI':
    case 'ASI':
      return AWS;
    case 'AIz':
      return GOOGLE;
    case 'eyJ':
      return JWT;
    case 'Bea':
    case 'bea':
      return BEARER;
    default:
      return prefix.startsWith('gh') ? GITHUB : OPAQUE; // sk_live_, rk_test_, ...
  }
}

function redactTokens(text: string): string {
  let out = '';
  let copiedUpTo = 0;
  const prefixes = new RegExp(TOKEN_PREFIX.source, 'g');
  for (let match = prefixes.exec(text); match !== null; match = prefixes.exec(text)) {
    const start = match.index;
    // a token starts a word: not inside one (task-..., mask_...), but after a '-' as after a blank
    if (start > 0 && isKeyChar(text.charCodeAt(start - 1)) && text.charCodeAt(start - 1) !== DASH) continue;
    const shape = shapeOf(match[0]);
    let tokenStart = start + match[0].length;
    if (shape.keepsPrefix) while (isBlank(text.charCodeAt(tokenStart))) tokenStart++;
    let end = tokenStart;
    let hasDigit = false;
    let dots = 0;
    for (; end < text.length && shape.chars(text.charCodeAt(end)); end++) {
      hasDigit ||= isDigit(text.charCodeAt(end));
      if (text.charCodeAt(end) === DOT) dots++;
    }
    prefixes.lastIndex = end;
    const length = end - tokenStart;
    if (length < shape.minChars || (shape.needsDigit && !hasDigit) || (shape.isJwt && dots < 2)) continue;
    if (shape.exactChars !== undefined && (length !== shape.exactChars || isAlphanumeric(text.charCodeAt(end)))) continue;
    out += text.slice(copiedUpTo, shape.keepsPrefix ? tokenStart : start) + REDACTED;
    copiedUpTo = end;
  }
  return copiedUpTo === 0 ? text : out + text.slice(copiedUpTo);
}

const SPACE = 0x20;
const TAB = 0x09;
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const EQUALS = 0x3d;
const SLASH = 0x2f;
const AT = 0x40;
const DOT = 0x2e;
const DASH = 0x2d;
const UNDERSCORE = 0x5f;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const isDigit = (char: number) => char >= 0x30 && char <= 0x39;
const isUpperOrDigit = (char: number) => isDigit(char) || (char >= 0x41 && char <= 0x5a);
const isAlphanumeric = (char: number) => isUpperOrDigit(char) || (char >= 0x61 && char <= 0x7a);
const isKeyChar = (char: number) => isAlphanumeric(char) || char === UNDERSCORE || char === DASH || char === DOT;
const isBlank = (char: number) => char === SPACE || char === TAB;
const isQuote = (char: number) => char === DOUBLE_QUOTE || char === SINGLE_QUOTE;
const isGapChar = (char: number) => isQuote(char) || char === BACKSLASH || isBlank(char);
// + / = ~ . - : the rest of a bearer token's alphabet (RFC 6750 b64token)
const isTokenPunctuation = (char: number) => char === 0x2b || char === SLASH || char === EQUALS || char === 0x7e || char === DOT;
// what ends an unquoted value: blanks and line breaks, quotes, , ; & } ) and a backslash (an escape in JSON text)
const isValueEnd = (char: number) =>
  char <= SPACE ||
  isQuote(char) ||
  char === 0x2c ||
  char === 0x3b ||
  char === 0x26 ||
  char === CLOSE_BRACE ||
  char === 0x29 ||
  char === BACKSLASH;
// what ends a URL's authority (user:password@host): a path, query or fragment, blanks, quotes and brackets
const isAuthorityEnd = (char: number) =>
  char <= SPACE || char === SLASH || char === 0x3f || char === 0x23 || char === AT || isQuote(char) || char === 0x3c || char === 0x3e;

/** test/fixtures/redaction-cases.json: the rules the server and both SDKs are held to. */
export interface RedactionCases {
  secretKeys: string[];
  keptKeys: string[];
  values: Array<{ input: unknown; output: unknown }>;
  text: Array<{ input: string; output: string }>;
}
