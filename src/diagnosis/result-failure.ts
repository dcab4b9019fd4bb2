// Failures reported as results (docs/result-failures.md): a call its sender reported as a success whose result says it
// failed. Only the result's top level is read (and the text blocks of an MCP result's content), each field by its name,
// so an event costs a handful of property reads and bounded string work, whatever its result holds.

/** The rules, in the order they are tried. Persisted (events.result_rule, result_failure_policies): renaming one needs a migration. */
export const RESULT_FAILURE_RULES = ['mcp_is_error', 'failure_flag', 'error_field', 'status_code', 'error_string'] as const;
export type ResultFailureRule = (typeof RESULT_FAILURE_RULES)[number];

/** The error type of a result failure that names no type of its own. */
export const RESULT_ERROR_TYPE = 'ResultError';

export interface ResultFailure {
  /** Every rule the result matches, in RESULT_FAILURE_RULES order: a project that turns one off may still have another. */
  rules: ResultFailureRule[];
  /** The type the result names (`error.type`, `error.name`, a `ValueError:` prefix), else ResultError. */
  type: string;
  /** The text the result carries (at most MAX_RESULT_FAILURE_MESSAGE_CHARS), else what the rule saw. */
  message: string;
}

export const MAX_RESULT_FAILURE_MESSAGE_CHARS = 8 * 1024;
const MAX_CONTENT_BLOCKS = 20;
const MAX_TYPE_CHARS = 100;
/** Leading whitespace skipped before an error string's marker; more and the string is not read as one. */
const MAX_LEADING_SPACE = 64;
const FAILURE_STATUSES = new Set(['error', 'failed', 'failure']);
const MAX_STATUS_CHARS = 7;
const TRACEBACK_MARKER = 'Traceback (most recent call last)';
/** The wording the MCP gateway uses for an isError result without text (mcp-gateway/src/call-event.ts). */
const MCP_NO_CONTENT = 'Tool returned isError without content';

/** What `result` (the result of a call reported as a success) says of a failure, or null when it says none. */
export function findResultFailure(result: unknown): ResultFailure | null {
  if (typeof result === 'string') return findErrorString(result);
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return null;
  const fields = result as Record<string, unknown>;
  const rules: ResultFailureRule[] = [];
  if (fields.isError === true) rules.push('mcp_is_error');
  // an explicit success is the tool's own word: no other field of the envelope overrules it (MCP's isError is the protocol's)
  if (fields.success !== true && fields.ok !== true) {
    if (isFalseFlag(fields.success) || isFalseFlag(fields.ok) || isFailureStatus(fields.status)) rules.push('failure_flag');
    if (isPresent(fields.error) || isPresent(fields.errors)) rules.push('error_field');
    if (httpStatusOf(fields) !== null) rules.push('status_code');
  }
  if (rules.length === 0) return null;
  return { rules, type: namedTypeOf(fields.error) ?? RESULT_ERROR_TYPE, message: messageOf(fields, rules) };
}

/** `false`, or `0` as some envelopes write it ("success": 0). */
function isFalseFlag(value: unknown): boolean {
  return value === false || value === 0;
}

function isFailureStatus(value: unknown): boolean {
  return typeof value === 'string' && value.length <= MAX_STATUS_CHARS && FAILURE_STATUSES.has(value.toLowerCase());
}

/** A non-empty error: text with a visible character, `true`, a non-empty list or object. Null, false, 0, "", [], {} are none. */
function isPresent(value: unknown): boolean {
  if (typeof value === 'string') return hasVisibleChar(value);
  if (value === true) return true;
  if (Array.isArray(value)) return value.length > 0;
  if (value !== null && typeof value === 'object') return hasOwnKey(value);
  return false;
}

/** The first of statusCode, status_code, status that is an HTTP error status (an integer 400-599). */
function httpStatusOf(fields: Record<string, unknown>): number | null {
  for (const value of [fields.statusCode, fields.status_code, fields.status]) {
    if (typeof value === 'number' && Number.isInteger(value) && value >= 400 && value <= 599) return value;
  }
  return null;
}

function messageOf(fields: Record<string, unknown>, rules: readonly ResultFailureRule[]): string {
  const text =
    (rules[0] === 'mcp_is_error' ? contentText(fields.content) : '') ||
    errorText(fields.error) ||
    errorText(Array.isArray(fields.errors) ? fields.errors[0] : fields.errors) ||
    visibleText(fields.message);
  const statusCode = rules.includes('status_code') ? httpStatusOf(fields) : null;
  // "status code 429" is the wording the categorizer's rules read (rate limit, timeout, server error, permission)
  const message = statusCode === null ? text || seenText(fields, rules[0]) : `status code ${statusCode}${text ? `: ${text}` : ''}`;
  return cutText(message, MAX_RESULT_FAILURE_MESSAGE_CHARS);
}

/** The text blocks of an MCP content list, one per line, as the gateway joins them. */
function contentText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  let text = '';
  for (let index = 0; index < content.length && index < MAX_CONTENT_BLOCKS; index++) {
    const block: unknown = content[index];
    if (block === null || typeof block !== 'object') continue;
    const { type, text: blockText } = block as { type?: unknown; text?: unknown };
    if (type !== 'text' || typeof blockText !== 'string') continue;
    text += (text ? '\n' : '') + cutText(blockText, MAX_RESULT_FAILURE_MESSAGE_CHARS - text.length - 1);
    if (text.length >= MAX_RESULT_FAILURE_MESSAGE_CHARS) break;
  }
  return text;
}

/** An error given as text, or as an object with a text `message`. */
function errorText(error: unknown): string {
  if (typeof error === 'string') return visibleText(error);
  if (error !== null && typeof error === 'object' && !Array.isArray(error)) return visibleText((error as { message?: unknown }).message);
  return '';
}

function visibleText(value: unknown): string {
  return typeof value === 'string' && hasVisibleChar(value) ? cutText(value, MAX_RESULT_FAILURE_MESSAGE_CHARS) : '';
}

/** When the result carries no text: what the rule saw, in the result's own terms. */
function seenText(fields: Record<string, unknown>, rule: ResultFailureRule): string {
  if (rule === 'mcp_is_error') return MCP_NO_CONTENT;
  if (rule === 'failure_flag') {
    const [key, value] = isFalseFlag(fields.success)
      ? ['success', fields.success]
      : isFalseFlag(fields.ok)
        ? ['ok', fields.ok]
        : ['status', fields.status];
    return `The result reported "${key}": ${JSON.stringify(value)}`;
  }
  return 'The result reported an error';
}

/** `error.type` or `error.name` when it reads as a type name (letters, digits, _ . $), else null. */
function namedTypeOf(error: unknown): string | null {
  if (error === null || typeof error !== 'object' || Array.isArray(error)) return null;
  const { type, name } = error as { type?: unknown; name?: unknown };
  for (const candidate of [type, name]) if (typeof candidate === 'string' && isTypeName(candidate)) return candidate;
  return null;
}

/**
 * A result that is only an error string: it begins (after at most MAX_LEADING_SPACE whitespace) with `Error:`,
 * `Exception:` (any case), a type name ending in `Error` or `Exception` and a colon (`ValueError: ...`,
 * `java.lang.IllegalStateException: ...`), or a Python traceback's first line. A mention of "error" anywhere else is not.
 */
function findErrorString(text: string): ResultFailure | null {
  let start = 0;
  while (start < text.length && start <= MAX_LEADING_SPACE && isSpace(text.charCodeAt(start))) start++;
  if (start > MAX_LEADING_SPACE) return null;
  const message = cutText(start === 0 ? text : text.slice(start), MAX_RESULT_FAILURE_MESSAGE_CHARS);
  if (message.startsWith(TRACEBACK_MARKER)) return { rules: ['error_string'], type: RESULT_ERROR_TYPE, message };
  const colon = message.indexOf(':');
  if (colon <= 0 || colon > MAX_TYPE_CHARS) return null;
  const name = message.slice(0, colon);
  if (!isTypeName(name)) return null;
  const lowerName = name.toLowerCase();
  if (lowerName === 'error' || lowerName === 'exception') return { rules: ['error_string'], type: RESULT_ERROR_TYPE, message };
  const shortName = name.slice(name.lastIndexOf('.') + 1);
  if (shortName.length > 5 && (shortName.endsWith('Error') || shortName.endsWith('Exception'))) {
    return { rules: ['error_string'], type: shortName, message };
  }
  return null;
}

/** At most MAX_TYPE_CHARS of A-Z a-z 0-9 _ . $, not starting with a digit or a dot; checked char by char. */
function isTypeName(text: string): boolean {
  if (text.length === 0 || text.length > MAX_TYPE_CHARS) return false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const isLetter = (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 36;
    const isDigitOrDot = (code >= 48 && code <= 57) || code === 46;
    if (!isLetter && !(index > 0 && isDigitOrDot)) return false;
  }
  return true;
}

/** At most `maxChars` of `text`, never ending between the halves of a surrogate pair (Postgres refuses a lone half). */
function cutText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const code = text.charCodeAt(maxChars - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? maxChars - 1 : maxChars);
}

function hasVisibleChar(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (!isSpace(text.charCodeAt(index))) return true;
  return false;
}

function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 160 || code === 0xfeff;
}

function hasOwnKey(value: object): boolean {
  for (const key in value) if (Object.hasOwn(value, key)) return true;
  return false;
}
