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

const PLAIN_NAME = new RegExp(`^[\\p{L}_$][\\p{L}\\p{N}_$.\\-]{0,${MAX_NAME_LENGTH - 1}}$`, 'u');
const PLAIN_STRING = /^[\p{L}\p{N}_.,:@+\-/%]+(?: [\p{L}\p{N}_.,:@+\-/%]+)*$/u;

/** A parameter name a model could have meant: letters, digits, `_ $ . -`, starting with a letter, `_` or `$`. */
export function isPlainName(name: string): boolean {
  return PLAIN_NAME.test(name);
}

/** A value safe to show an agent verbatim: a finite number, a boolean, or a short string of plain words. */
export function isPlainValue(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value === 'boolean') return true;
  if (typeof value !== 'string') return false;
  if (value.length > MAX_PLAIN_STRING_LENGTH) return false;
  if (value === '') return true;
  return PLAIN_STRING.test(value) && value.split(' ').length - 1 <= MAX_PLAIN_STRING_SPACES;
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

function boundedJson(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
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
