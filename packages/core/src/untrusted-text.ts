/**
 * Text that came from events (argument names, argument values, error messages) is written by whoever reports events,
 * and a warning rendered from it reaches every agent that loads the tool. So only fragments whose shape cannot carry
 * markup or instructions go into a warning that is applied without a human: names that look like identifiers, and
 * values that are numbers, booleans or short plain strings. Anything else is quoted and bounded, and marks the
 * recommendation for a human to review. Pure.
 */

export const MAX_NAME_LENGTH = 64;
export const MAX_PLAIN_STRING_LENGTH = 32;
const MAX_PLAIN_STRING_SPACES = 2;
const MAX_QUOTED_LENGTH = 60;

// ASCII only: letters of other scripts include ones that render as blanks (U+3164 HANGUL FILLER, U+115F, U+1160,
// U+FFA0) and ones that look like Latin letters (Cyrillic 'а' in 'pаssword'), and a name an agent reads must be the name
// it sees. Zero-width and bidi controls, U+2800 (braille blank) and every other non-ASCII character fall out with them.
const PLAIN_NAME = new RegExp(`^[A-Za-z_$][A-Za-z0-9_$.\\-]{0,${MAX_NAME_LENGTH - 1}}$`);
const PLAIN_STRING = /^[A-Za-z0-9_.,:+\-/%]+(?: [A-Za-z0-9_.,:+\-/%]+)*$/;
// what makes a value a link: a scheme (http://, javascript:, data:), www., or a domain-like word (evil.com, a.b.io);
// e-mail addresses fall out with '@', which a plain string does not have. Values are at most 32 characters.
const LINK_LIKE = /[A-Za-z][A-Za-z0-9+.-]*:|www\.|[A-Za-z0-9-]\.[A-Za-z]{2,}/i;
// A dotted name is usually a path (user.name); one that starts with www. or ends in a common top-level domain reads as
// a link to an agent.
const LINK_LIKE_NAME = /^www\.|\.(?:com|net|org|io|ai|co|app|dev|xyz|info|me|ly|ru|cn|sh|gg|to|link|site|online)$/i;

/**
 * A parameter name a model could have meant: 1 to 64 ASCII letters, digits, `_ $ . -`, starting with a letter, `_` or
 * `$`, and not a link.
 */
export function isPlainName(name: string): boolean {
  return PLAIN_NAME.test(name) && !LINK_LIKE_NAME.test(name);
}

/**
 * A value safe to show an agent verbatim: a finite number, a boolean, or a short string of plain ASCII words that is no
 * link (no scheme, www., domain-like word or e-mail address).
 */
export function isPlainValue(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value === 'boolean') return true;
  if (typeof value !== 'string') return false;
  if (value.length > MAX_PLAIN_STRING_LENGTH) return false;
  if (value === '') return true;
  return PLAIN_STRING.test(value) && value.split(' ').length - 1 <= MAX_PLAIN_STRING_SPACES && !LINK_LIKE.test(value);
}

/** A name as a warning quotes it: `'number'`, or a bounded JSON string when it is not plain (for a human to read). */
export function quoteName(name: string): string {
  return isPlainName(name) ? `'${name}'` : boundedJson(name);
}

/** A value as a warning quotes it: `'red'`, `42`, or a bounded JSON form when it is not plain. */
export function quoteValue(value: unknown): string {
  if (typeof value === 'string' && isPlainValue(value)) return `'${value}'`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return boundedJson(value);
}

// escaped beyond JSON's own escapes: a human reviewing "\u3164" sees what a blank-looking letter hides
const NOT_PRINTABLE_ASCII = /[^\x20-\x7e]/g;
const escapeUnit = (unit: string) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;

function boundedJson(value: unknown): string {
  const json = (JSON.stringify(value) ?? String(value)).replace(NOT_PRINTABLE_ASCII, escapeUnit);
  return json.length <= MAX_QUOTED_LENGTH ? json : `${json.slice(0, MAX_QUOTED_LENGTH)}…`;
}

/**
 * Collects why a draft's text cannot go to agents unreviewed. Each check names the fragment's role, so the reason a
 * human reads says what was odd ("argument name <img …> is not a plain identifier").
 */
export class UntrustedFragments {
  private readonly reasons: string[] = [];

  name(role: string, name: string): string {
    if (!isPlainName(name)) this.reasons.push(`${role} ${boundedJson(name)} is not a plain identifier`);
    return quoteName(name);
  }

  value(role: string, value: unknown): string {
    if (!isPlainValue(value)) this.reasons.push(`${role} ${boundedJson(value)} is not a number or a short plain string`);
    return quoteValue(value);
  }

  /** Free text from events (an error message) is never shown to agents without a human. */
  freeText(role: string): void {
    this.reasons.push(`${role} is free text from events`);
  }

  /** Null when every fragment is plain; otherwise why a human must review the text first. */
  reviewReason(): string | null {
    return this.reasons.length === 0 ? null : this.reasons.join('; ');
  }
}
