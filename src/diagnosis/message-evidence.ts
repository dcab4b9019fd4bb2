import { asNumber, isPlainObject, parseJsonOrPythonLiteral } from './argument-values';
import type { Subtype, ToolError } from './diagnosis.types';
import { type Finding, selectPrimaryFinding, toPointer } from './finding';
import { familyOfTypeName } from './exception-type-families';
import { BY_VALUE, MESSAGE_RULES, type MessageRule } from './message-rules';
import { SUBTYPE_BY_SCHEMA_KEYWORD, categoryOfSubtype } from './schema-evidence';
import { ownValue } from './own-value';

// Reads an error message the way a person would: peel off the framework's wrapper (LangGraph, MCP, LangChain),
// read structured reports line by line (pydantic, zod, Ajv, JSON Schema validators), and otherwise unwrap the
// chain of causes and match each, innermost first, against the rule table's wordings; when no wording matches, the
// exception type names decide, again innermost first (see exception-type-families.ts).

/** Only the head of a message is read: every report we know puts its substance first, and it bounds regex work. */
export const MAX_MESSAGE_CHARS = 8192;
const MAX_UNWRAP_DEPTH = 6;
const MAX_CLAUSES = 50;
const MAX_CAUSES = 8;

export interface MessageEvidence {
  finding: Finding;
  /** The failing call's arguments when the wrapper printed them (LangGraph's "with kwargs {...}"). */
  printedArguments?: unknown;
}

interface Clause {
  text: string;
  path: string | null;
}

/**
 * What a message says depends on its type and text alone, and agents repeat the same failures word for word: the
 * readings of recent messages are kept, so a repeated one costs a lookup instead of every rule's regex (issue 18).
 * Readings are shared between callers, which only read them. Bounded in entries and in the length of a kept message.
 */
const recentReadings = new Map<string, MessageEvidence | null>();
const MAX_RECENT_READINGS = 1000;
const MAX_REMEMBERED_MESSAGE_CHARS = 2048;

export function findMessageEvidence(error: ToolError | null | undefined): MessageEvidence | null {
  const message: unknown = error?.message;
  const type: unknown = error?.type;
  const isRemembered =
    typeof message === 'string' &&
    message.length + (typeof type === 'string' ? type.length : 0) <= MAX_REMEMBERED_MESSAGE_CHARS &&
    (type === undefined || type === null || typeof type === 'string');
  if (!isRemembered) return readMessageEvidence(error);
  // the type's length first: no type and message can make the key of another pair
  const typeText = typeof type === 'string' ? type : '';
  const key = `${type === undefined ? 'u' : type === null ? 'n' : 's'}${typeText.length}:${typeText}${message}`;
  const known = recentReadings.get(key);
  if (known !== undefined) return known;
  const reading = readMessageEvidence(error);
  if (recentReadings.size >= MAX_RECENT_READINGS) recentReadings.delete(recentReadings.keys().next().value!);
  recentReadings.set(key, reading);
  return reading;
}

function readMessageEvidence(error: ToolError | null | undefined): MessageEvidence | null {
  const raw = toText(error?.message).slice(0, MAX_MESSAGE_CHARS);
  const typeNames = new Set<string>();
  const declaredType = toText(error?.type).trim();
  if (declaredType) typeNames.add(lastDottedSegment(declaredType));

  const { text, printedArguments, hasLocLines } = unwrap(raw, typeNames);
  for (const name of exceptionNamesIn(text)) typeNames.add(name);
  const types = [...typeNames];

  const structured = readStructuredReport(text, types, hasLocLines === true);
  if (structured) return { finding: structured, printedArguments };
  const causes = readCauseChain(withoutStackFrames(text));
  // The declared type and the names a wrapper's repr gave belong to the outermost exception.
  const outermost = causes[causes.length - 1];
  if (declaredType) outermost.typeNames.push(declaredType);
  for (const name of typeNames) if (!outermost.typeNames.some((known) => lastDottedSegment(known) === name)) outermost.typeNames.push(name);
  const finding = decideOnCauses(causes, types);
  return finding ? { finding, printedArguments } : null;
}

/**
 * Wordings first, then type names; among the causes that decide, the most specific one, the root cause on a tie.
 * The innermost cause is not always the telling one: zoneinfo handles a missing tzdata module and then raises "No
 * time zone found", so the environment failure underneath is context and the unknown zone is the problem.
 */
function decideOnCauses(causes: readonly Cause[], types: readonly string[]): Finding | null {
  const byWording = compact(causes.map((cause) => classifyWording({ text: cause.text, path: null }, types)));
  if (byWording.length > 0) return mostSpecific(byWording);
  const byType = compact(
    causes.map((cause) => {
      for (const name of cause.typeNames) {
        const found = classifyTypeName(name, { text: cause.text, path: null });
        if (found) return found;
      }
      return null;
    }),
  );
  return byType.length > 0 ? mostSpecific(byType) : null;
}

/**
 * runtime_error is the taxonomy's catch-all for "not the call's fault", so any other reading is more specific, and a
 * reading with a subtype more specific than one without. Findings come root cause first; the first of the best wins.
 */
function mostSpecific(findings: readonly Finding[]): Finding {
  const specificity = (finding: Finding): number => (finding.category === 'runtime_error' ? 0 : 2) + (finding.subtype === null ? 0 : 1);
  return findings.reduce((best, finding) => (specificity(finding) > specificity(best) ? finding : best));
}

function toText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  try {
    return typeof value === 'object' ? (JSON.stringify(value) ?? '') : String(value);
  } catch {
    return '';
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Wrappers

interface Unwrapped {
  text: string;
  printedArguments?: unknown;
  /** The wrapper prints pydantic errors as "loc: message" lines (LangGraph, FastMCP). */
  hasLocLines?: boolean;
}

/** Peels known framework wrappers, innermost last. Each pattern is anchored, so it runs once per level. */
function unwrap(message: string, typeNames: Set<string>): Unwrapped {
  let text = message.trim();
  let printedArguments: unknown;
  let hasLocLines = false;
  for (let depth = 0; depth < MAX_UNWRAP_DEPTH; depth++) {
    const next = unwrapOnce(text, typeNames);
    if (next === null) break;
    if (next.printedArguments !== undefined) printedArguments = next.printedArguments;
    hasLocLines ||= next.hasLocLines === true;
    text = next.text.trim();
  }
  return { text, printedArguments, hasLocLines };
}

function unwrapOnce(text: string, typeNames: Set<string>): Unwrapped | null {
  // LangGraph TOOL_INVOCATION_ERROR_TEMPLATE / TOOL_EXECUTION_ERROR_TEMPLATE, also LangChain JS ToolInvocationError.
  const langgraph = /^Error (?:invoking|executing) tool '([^'\n]{0,200})' with kwargs ([^\n]{0,4000}?) with error:\s?\n?([\s\S]*)$/.exec(
    text,
  );
  if (langgraph) {
    const body = withoutClosingSentence(langgraph[3], 'Please fix the error and try again') ?? langgraph[3];
    const kwargs = parseJsonOrPythonLiteral(langgraph[2]);
    return { text: body, printedArguments: kwargs.ok ? kwargs.value : undefined, hasLocLines: true };
  }
  // LangGraph TOOL_CALL_ERROR_TEMPLATE and the JS ToolNode fallback: "Error: <e>\n Please fix your mistakes."
  const fixMistakes = withoutClosingSentence(text, 'Please fix your mistakes');
  if (fixMistakes !== null) return { text: fixMistakes.replace(/^Error: /, '') };
  // MCP Python FastMCP: "Error executing tool <name>: <e>"; MCP TypeScript SDK input validation wrapper.
  const fastMcp = /^Error executing tool [\w.-]{1,128}: ([\s\S]*)$/.exec(text);
  if (fastMcp) return { text: fastMcp[1], hasLocLines: true };
  const mcpValidation = /^(?:MCP error -?\d{1,6}: )?Input validation error: Invalid arguments for tool [\w.-]{1,128}: ([\s\S]*)$/.exec(
    text,
  );
  if (mcpValidation) return { text: `Invalid arguments: ${mcpValidation[1]}` };
  const mcpError = /^MCP error (-?\d{1,6}): ([\s\S]*)$/.exec(text);
  if (mcpError) return { text: `${mcpError[2]} (JSON-RPC ${mcpError[1]})` };
  // LangChain JS ToolInputParsingException: the zod report follows the fixed sentence.
  const parsing = /^Received tool input did not match expected schema\s*\n([\s\S]+)$/.exec(text);
  if (parsing) return { text: parsing[1] };
  // Python repr of an exception, as LangGraph prints it with handle_tool_errors=True: ValueError('kaboom').
  const repr = /^((?:[A-Za-z_]\w{0,60}\.){0,6}[A-Z]\w{0,60})\(([\s\S]*)\)$/.exec(text);
  if (repr) {
    const name = lastDottedSegment(repr[1]);
    typeNames.add(name);
    const quoted = /^(['"])([\s\S]*)\1$/.exec(repr[2].trim());
    const body = quoted ? quoted[2].replace(/\\n/g, '\n').replace(/\\'/g, "'") : repr[2];
    return { text: `${name}: ${body}` };
  }
  // A JSON-RPC error object or response printed as text, or a tool result that packs its failure as JSON.
  if (text.startsWith('{')) {
    const parsed = parseJsonOrPythonLiteral(text);
    if (parsed.ok && isPlainObject(parsed.value)) return unwrapJsonError(parsed.value);
  }
  return null;
}

/**
 * JSON-RPC errors keep their code in the text; a failure packed as {"status": "Failed", "message": ...} (Letta),
 * {"error": "..."} or {"detail": "..."} is read as its text. Objects of issues (FastAPI's detail list) are left to
 * the structured readers.
 */
function unwrapJsonError(value: Record<string, unknown>): Unwrapped | null {
  const errorObject = isPlainObject(value.error) ? value.error : value;
  if (typeof errorObject.message === 'string' && (typeof errorObject.code === 'number' || 'jsonrpc' in value)) {
    return { text: `${errorObject.message} (JSON-RPC ${String(errorObject.code)})` };
  }
  const isFailureReport = typeof value.status === 'string' && /^(?:failed|failure|error)$/i.test(value.status);
  if (isFailureReport && typeof value.message === 'string') return { text: value.message };
  if (typeof value.error === 'string') return { text: value.error };
  if (typeof value.detail === 'string') return { text: value.detail };
  return null;
}

/**
 * The text before a fixed closing sentence (an optional final period, white space around it), or null when the text
 * does not end with it. A regex like /\s*Sentence$/ retries from every offset of a long run of blanks: quadratic.
 */
function withoutClosingSentence(text: string, sentence: string): string | null {
  let end = text.trimEnd();
  if (end.endsWith('.')) end = end.slice(0, -1);
  if (!end.endsWith(sentence)) return null;
  return end.slice(0, end.length - sentence.length).trimEnd();
}

// ---------------------------------------------------------------------------------------------------------------
// Exception names, stack frames

/** Exception class names at line starts, after "Caused by:", or in a repr: the types the runtime reported. */
function exceptionNamesIn(text: string): string[] {
  const names: string[] = [];
  const pattern =
    /(?:^|Caused by:\s?|\bthread "[^"\n]{0,60}" )\s{0,8}(?:[A-Za-z_$][\w$]{0,60}\.){0,8}([A-Z][\w$]{0,60}(?:Error|Exception|Timeout|Exit|Fault|Interrupt))\b/gm;
  for (const match of text.matchAll(pattern)) {
    names.push(match[1]);
    if (names.length >= 10) break;
  }
  return names;
}

function lastDottedSegment(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

/** Drops Python and Java/.NET stack frames: their file and function names would otherwise match rule words. */
function withoutStackFrames(text: string): string {
  // [ \t] rather than \s: with the m flag, \s+ would run across every following newline from each line start
  if (!/^[ \t]+(?:File "|at )|^Traceback \(most recent call last\)/m.test(text)) return text;
  const lines = text.split('\n');
  const kept: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    if (/^Traceback \(most recent call last\)|^\s+\.\.\. \d+ more|^\s*\^+\s*$/.test(line)) continue;
    if (/^\s+File "/.test(line)) {
      // The indented source line that follows a Python frame belongs to the frame.
      if (index + 1 < lines.length && /^\s{4,}\S/.test(lines[index + 1])) index++;
      continue;
    }
    if (/^\s+at /.test(line)) continue;
    kept.push(line);
  }
  return kept.join('\n');
}

interface Cause {
  /** The message with its exception-name prefixes removed. */
  text: string;
  /** Exception names as printed (qualified when the runtime qualified them), outermost first. */
  typeNames: string[];
}

// Python prints the root cause first, then these separators, then the exception it led to.
const PYTHON_CHAIN_SEPARATOR =
  /^(?:The above exception was the direct cause of the following exception:|During handling of the above exception, another exception occurred:)\s*$/;
// Java "Caused by:", Node util.inspect "[cause]:", .NET " ---> " inner exceptions: the cause follows.
const CAUSE_MARKER = /^\s{0,12}(?:Caused by:|\[cause\]:)\s?/;
const DOTNET_INNER = ' ---> ';

/**
 * Splits a message into the exceptions it chains, innermost (root cause) first. A single exception gives one cause.
 * "ExecutionException: java.lang.IllegalArgumentException: Illegal Capacity: -5" is one cause with two names: the
 * outer prefix is a wrapper that only prints its cause.
 */
function readCauseChain(text: string): Cause[] {
  const lines = text.split('\n');
  const pythonChunks: string[][] = [[]];
  for (const line of lines) {
    if (PYTHON_CHAIN_SEPARATOR.test(line.trim())) pythonChunks.push([]);
    else pythonChunks[pythonChunks.length - 1].push(line);
  }
  let printed: string[];
  if (pythonChunks.length > 1) {
    // Root first already; each chunk's exception line is its last non-blank text.
    printed = pythonChunks.map((chunk) => chunk.join('\n').trim());
  } else {
    printed = [];
    let current: string[] = [];
    for (const line of lines) {
      if (CAUSE_MARKER.test(line) && current.length > 0) {
        printed.push(current.join('\n'));
        current = [];
      }
      current.push(line.replace(CAUSE_MARKER, ''));
    }
    printed.push(current.join('\n'));
    printed = printed.flatMap((part) => part.split(DOTNET_INNER)).reverse();
  }
  const causes = printed
    .filter((part) => part.trim() !== '')
    .slice(0, MAX_CAUSES)
    .map(readCause);
  return causes.length > 0 ? causes : [{ text: '', typeNames: [] }];
}

/** Peels "pkg.Outer: pkg.Inner: message" prefixes; names are kept outermost first. */
function readCause(part: string): Cause {
  let text = part.trim();
  const typeNames: string[] = [];
  for (let depth = 0; depth < MAX_CAUSES; depth++) {
    const prefix = EXCEPTION_PREFIX.exec(text);
    if (!prefix) break;
    typeNames.push(prefix[1]);
    text = text.slice(prefix[0].length).trim();
  }
  return { text: stripTypePrefix(text), typeNames: typeNames.reverse() };
}

// An exception name at the head of a message, qualified or not ("java.nio.file.NoSuchFileException",
// "socket.gaierror", "re.error", "zipfile.BadZipFile"). It must end like an exception class: "strconv.Atoi: parsing"
// is a Go function, not a type.
const EXCEPTION_PREFIX =
  /^(?:Uncaught |Exception in thread "[^"\n]{0,60}" )?((?:[A-Za-z_$][\w$]{0,60}\.){0,8}(?:[A-Z][\w$]{0,60}(?:Error|Exception|Timeout|Exit|Fault|Interrupt|Overflow|Expired|File|Empty|Full)|[a-z]{0,20}(?:error|timeout)))(?: \[[A-Z_]{1,40}\])?(?::(?:\s|$)|$)/;

/** "ValueError: n must be positive" -> "n must be positive"; the name is already among the type names. */
function stripTypePrefix(text: string): string {
  return text.replace(
    /^(?:Uncaught |Exception in thread "[^"\n]{0,60}" )?(?:[A-Za-z_$][\w$]{0,60}\.){0,8}[A-Z]?[\w$]{0,60}(?:Error|Exception)(?: \[[A-Z_]{1,40}\])?:\s*/,
    '',
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Structured reports

function readStructuredReport(text: string, types: readonly string[], hasLocLines: boolean): Finding | null {
  const readers: ((input: string) => Finding[])[] = [
    (input) => readJsonIssues(input, types),
    (input) => readPydanticReport(input, types),
    (input) => readZodPretty(input, types),
    (input) => readJsonSchemaLocationLines(input, types),
    (input) => readAjvErrorsText(input, types),
    // "name: message" is too common a shape to read outside the wrappers known to print it.
    (input) => (hasLocLines ? readLocLines(input, types) : []),
  ];
  for (const read of readers) {
    const findings = read(text);
    if (findings.length > 0) return selectPrimaryFinding(findings);
  }
  return null;
}

/** zod's error.message, Ajv's errors, pydantic's errors(), FastAPI's {"detail": [...]} — all JSON arrays of issues. */
function readJsonIssues(text: string, types: readonly string[]): Finding[] {
  const start = text.search(/[[{]\s*[{"]/);
  if (start === -1) return [];
  const end = Math.max(text.lastIndexOf(']'), text.lastIndexOf('}'));
  if (end <= start) return [];
  const parsed = parseJsonOrPythonLiteral(text.slice(start, end + 1));
  if (!parsed.ok) return [];
  let issues: unknown = parsed.value;
  if (isPlainObject(issues)) issues = issues.detail ?? issues.issues ?? issues.errors;
  if (!Array.isArray(issues)) return [];
  return issues
    .slice(0, MAX_CLAUSES)
    .filter(isPlainObject)
    .flatMap((issue) => issueToFindings(issue, types));
}

function issueToFindings(issue: Record<string, unknown>, types: readonly string[]): Finding[] {
  const message = typeof issue.message === 'string' ? issue.message : typeof issue.msg === 'string' ? issue.msg : '';
  if (typeof issue.keyword === 'string') {
    const instancePath =
      typeof issue.instancePath === 'string' ? issue.instancePath : typeof issue.dataPath === 'string' ? issue.dataPath : '';
    return ajvLikeToFindings(issue.keyword, instancePath, isPlainObject(issue.params) ? issue.params : {}, message, types);
  }
  if (Array.isArray(issue.loc) && typeof issue.type === 'string') {
    // FastAPI prefixes the request part; a tool's arguments are the body.
    const loc = issue.loc.filter((segment, index) => !(index === 0 && ['body', 'query', 'path'].includes(String(segment))));
    const path = toPointer(loc.map((segment) => (typeof segment === 'number' ? segment : String(segment))));
    return compact([pydanticToFinding(issue.type, message, path, issue.input, undefined, types)]);
  }
  if (typeof issue.code === 'string' && Array.isArray(issue.path)) {
    const path = toPointer(issue.path.map((segment) => (typeof segment === 'number' ? segment : String(segment))));
    return zodToFindings(issue, issue.code, message, path, types);
  }
  return message ? compact([classifyClause({ text: message, path: null }, types)]) : [];
}

function zodToFindings(
  issue: Record<string, unknown>,
  code: string,
  message: string,
  path: string | null,
  types: readonly string[],
): Finding[] {
  const subtype = ownValue(ZOD_SUBTYPE_BY_CODE, code);
  if (code === 'unrecognized_keys' && Array.isArray(issue.keys)) {
    return issue.keys
      .filter((key): key is string => typeof key === 'string')
      .map((key) => ({
        category: 'argument_mismatch' as const,
        subtype: 'unknown_argument' as const,
        argumentPath: `${path ?? ''}/${key}`,
        wrongArgument: key,
      }));
  }
  if (code === 'invalid_type') {
    const received = typeof issue.received === 'string' ? issue.received : (/received (\w+)/i.exec(message)?.[1] ?? '');
    if (/^(?:undefined|null)$/i.test(received) || /^Required$/.test(message)) {
      return [{ category: 'argument_mismatch', subtype: 'missing_argument', argumentPath: path }];
    }
    if (path === null && /^object$/i.test(String(issue.expected))) {
      return [{ category: 'argument_mismatch', subtype: 'malformed_arguments', argumentPath: null }];
    }
    const isArrayForScalar = /^array$/i.test(received) && SCALAR_WORDS.test(String(issue.expected ?? ''));
    return [{ category: 'argument_mismatch', subtype: 'type_mismatch', argumentPath: path, isArrayForScalar }];
  }
  if (subtype) {
    return [{ category: categoryOfSubtype(subtype), subtype, argumentPath: path, statedValue: asNumber(issue.input) }];
  }
  return compact([classifyClause({ text: message, path }, types)]);
}

const ZOD_SUBTYPE_BY_CODE: Readonly<Record<string, Subtype>> = {
  too_big: 'above_maximum',
  too_small: 'below_minimum',
  invalid_enum_value: 'not_in_enum',
  invalid_literal: 'not_in_enum',
  invalid_value: 'not_in_enum',
  invalid_string: 'invalid_format',
  invalid_format: 'invalid_format',
  invalid_date: 'invalid_format',
  unrecognized_keys: 'unknown_argument',
  invalid_union: 'type_mismatch',
};

const SCALAR_WORDS = /^(?:number|integer|int|float|string|str|boolean|bool|bigint|nan|date)$/i;

function ajvLikeToFindings(
  keyword: string,
  instancePath: string,
  params: Record<string, unknown>,
  message: string,
  types: readonly string[],
): Finding[] {
  const subtype = ownValue(SUBTYPE_BY_SCHEMA_KEYWORD, keyword);
  if (!subtype) return message ? compact([classifyClause({ text: message, path: instancePath || null }, types)]) : [];
  if (subtype === 'missing_argument' && typeof params.missingProperty === 'string') {
    return [{ category: 'argument_mismatch', subtype, argumentPath: `${instancePath}/${params.missingProperty}` }];
  }
  if (subtype === 'unknown_argument' && typeof params.additionalProperty === 'string') {
    const name = params.additionalProperty;
    return [{ category: 'argument_mismatch', subtype, argumentPath: `${instancePath}/${name}`, wrongArgument: name }];
  }
  if (subtype === 'type_mismatch' && instancePath === '') {
    return [{ category: 'argument_mismatch', subtype: 'malformed_arguments', argumentPath: null }];
  }
  return [{ category: categoryOfSubtype(subtype), subtype, argumentPath: instancePath || null }];
}

// pydantic-core error types (https://docs.pydantic.dev/latest/errors/validation_errors/).
const PYDANTIC_SUBTYPE_BY_TYPE: Readonly<Record<string, Subtype>> = {
  missing: 'missing_argument',
  missing_argument: 'missing_argument',
  missing_keyword_only_argument: 'missing_argument',
  missing_positional_only_argument: 'missing_argument',
  union_tag_not_found: 'missing_argument',
  extra_forbidden: 'unknown_argument',
  unexpected_keyword_argument: 'unknown_argument',
  unexpected_positional_argument: 'unknown_argument',
  no_such_attribute: 'unknown_argument',
  json_invalid: 'malformed_arguments',
  json_type: 'malformed_arguments',
  greater_than: 'below_minimum',
  greater_than_equal: 'below_minimum',
  string_too_short: 'below_minimum',
  too_short: 'below_minimum',
  bytes_too_short: 'below_minimum',
  date_future: 'below_minimum',
  datetime_future: 'below_minimum',
  less_than: 'above_maximum',
  less_than_equal: 'above_maximum',
  string_too_long: 'above_maximum',
  too_long: 'above_maximum',
  bytes_too_long: 'above_maximum',
  date_past: 'above_maximum',
  datetime_past: 'above_maximum',
  decimal_max_digits: 'above_maximum',
  decimal_max_places: 'above_maximum',
  enum: 'not_in_enum',
  literal_error: 'not_in_enum',
  union_tag_invalid: 'not_in_enum',
  string_pattern_mismatch: 'invalid_format',
  date_parsing: 'invalid_format',
  date_from_datetime_parsing: 'invalid_format',
  date_from_datetime_inexact: 'invalid_format',
  datetime_parsing: 'invalid_format',
  datetime_from_date_parsing: 'invalid_format',
  datetime_object_invalid: 'invalid_format',
  time_parsing: 'invalid_format',
  time_delta_parsing: 'invalid_format',
  uuid_parsing: 'invalid_format',
  uuid_version: 'invalid_format',
  url_parsing: 'invalid_format',
  url_syntax_violation: 'invalid_format',
  url_scheme: 'invalid_format',
  url_too_long: 'above_maximum',
  ip_v4_address: 'invalid_format',
  ip_v6_address: 'invalid_format',
  ip_any_address: 'invalid_format',
  ip_v4_network: 'invalid_format',
  ip_v6_network: 'invalid_format',
  ip_any_network: 'invalid_format',
  ip_v4_interface: 'invalid_format',
  ip_v6_interface: 'invalid_format',
  ip_any_interface: 'invalid_format',
  timezone_naive: 'invalid_format',
  timezone_aware: 'invalid_format',
};

/** Container types that make a scalar-typed error an array-for-scalar one. */
const ARRAY_INPUT_TYPES = /^(?:list|tuple|set|frozenset|array)$/i;

function pydanticToFinding(
  type: string,
  message: string,
  path: string | null,
  input: unknown,
  inputType: string | undefined,
  types: readonly string[],
): Finding | null {
  if (type === 'value_error' || type === 'assertion_error') {
    const inner = message.replace(/^(?:Value error|Assertion failed), ?/, '');
    return classifyClause({ text: inner, path }, types);
  }
  if (type === 'recursion_loop' || type === 'int_parsing_size') return { category: 'overflow', subtype: null, argumentPath: path };
  if (/^(?:model_type|dict_type|model_attributes_type|dataclass_type|arguments_type)$/.test(type) && path === null) {
    return { category: 'argument_mismatch', subtype: 'malformed_arguments', argumentPath: null };
  }
  const subtype: Subtype | undefined =
    ownValue(PYDANTIC_SUBTYPE_BY_TYPE, type) ??
    (/_(?:type|parsing)$|^int_from_float$|^is_instance_of$|^is_subclass_of$|^finite_number$|^none_required$/.test(type)
      ? 'type_mismatch'
      : undefined);
  if (!subtype) return classifyClause({ text: message, path }, types);
  const isArray = Array.isArray(input) || (inputType !== undefined && ARRAY_INPUT_TYPES.test(inputType));
  const finding: Finding = {
    category: categoryOfSubtype(subtype),
    subtype,
    argumentPath: path,
    statedValue: asNumber(input),
    isArrayForScalar: subtype === 'type_mismatch' && isArray && !/^(?:list|tuple|set|frozenset|dict)_type$/.test(type),
  };
  if (subtype === 'unknown_argument' && path) finding.wrongArgument = path.slice(path.lastIndexOf('/') + 1);
  if (subtype === 'type_mismatch' && input === null) return { ...finding, subtype: 'missing_argument' };
  return finding;
}

/** str(ValidationError): "N validation error(s) for Model", then a loc line and an indented "msg [type=...]" line. */
function readPydanticReport(text: string, types: readonly string[]): Finding[] {
  const header = /\b\d{1,5} validation errors? for [^\n]{0,200}\n/.exec(text);
  if (!header) return [];
  const findings: Finding[] = [];
  let loc: string | null = null;
  for (const line of text
    .slice(header.index + header[0].length)
    .split('\n')
    .slice(0, MAX_CLAUSES * 3)) {
    if (/^\s{4,}For further information/.test(line) || line.trim() === '') continue;
    if (!/^\s/.test(line)) {
      loc = line.trim();
      continue;
    }
    const detail = /^\s{1,3}(.{0,2000}?) \[type=([a-z0-9_]{1,60})(?:, input_value=(.{0,1000}), input_type=(\w{1,60}))?\]\s*$/.exec(line);
    if (!detail) continue;
    const input = detail[4] === 'NoneType' ? null : detail[3] === undefined ? undefined : parseInputValue(detail[3]);
    const found = pydanticToFinding(detail[2], detail[1], locToPointer(loc), input, detail[4], types);
    if (found) findings.push(found);
    loc = null;
  }
  return findings;
}

function parseInputValue(printed: string): unknown {
  const parsed = parseJsonOrPythonLiteral(printed);
  return parsed.ok ? parsed.value : printed;
}

/** pydantic locs print as "items.0.qty"; LangGraph prints the same. */
function locToPointer(loc: string | null): string | null {
  if (!loc) return null;
  return toPointer(loc.split('.').map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment)));
}

/** z.prettifyError and LangChain JS: "✖ <message>\n  → at <path>" pairs. */
function readZodPretty(text: string, types: readonly string[]): Finding[] {
  if (!text.includes('✖')) return [];
  const findings: Finding[] = [];
  const pattern = /✖ ([^\n]{1,1000})(?:\n\s{0,8}→ at ([^\n]{1,500}))?/g;
  for (const match of text.matchAll(pattern)) {
    const path = match[2] ? zodPathToPointer(match[2]) : null;
    const found = classifyClause({ text: match[1], path }, types);
    if (found) findings.push(found);
    if (findings.length >= MAX_CLAUSES) break;
  }
  return findings;
}

/** "a.b[0].c" -> "/a/b/0/c" */
function zodPathToPointer(path: string): string | null {
  const segments = path.trim().match(/[^.[\]]+/g) ?? [];
  return toPointer(segments.map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment.replace(/^["']|["']$/g, ''))));
}

/** JSON Schema validators that print "<keywordLocation>: <error>" lines (LangChain JS with @cfworker/json-schema). */
function readJsonSchemaLocationLines(text: string, types: readonly string[]): Finding[] {
  const findings: Finding[] = [];
  for (const match of text.matchAll(/^\s{0,8}(#[^\s:]{0,400}): ([^\n]{1,1000})$/gm)) {
    const location = match[1];
    if (/A subschema had errors|does not match schema\.$/.test(match[2])) continue;
    const propertyNames = [...location.matchAll(/\/properties\/([^/]{1,200})/g)].map((property) => property[1]);
    const path = toPointer(propertyNames);
    const found = classifyClause({ text: match[2], path }, types);
    if (found) findings.push(found);
    if (findings.length >= MAX_CLAUSES) break;
  }
  return findings;
}

/** ajv.errorsText(): "data/number must be integer, data must have required property 'x'". */
function readAjvErrorsText(text: string, types: readonly string[]): Finding[] {
  if (!/(?:^|, )(?:data|instance)?(?:\/[^\s,]{0,200})? must /m.test(text)) return [];
  const findings: Finding[] = [];
  const pattern = /(?:^|, |\n)(?:data|instance)?((?:\/[^\s,]{1,200})?) (must [^,\n]{1,300})/g;
  for (const match of text.matchAll(pattern)) {
    const found = classifyClause({ text: match[2], path: match[1] || null }, types);
    if (found) findings.push(found);
    if (findings.length >= MAX_CLAUSES) break;
  }
  return findings;
}

/** LangGraph's default handler and FastMCP print "loc: message" lines for each pydantic error. */
function readLocLines(text: string, types: readonly string[]): Finding[] {
  const lines = text.split('\n').slice(0, MAX_CLAUSES);
  const findings: Finding[] = [];
  for (const line of lines) {
    const match = /^\s{0,8}([A-Za-z_][\w.-]{0,200}): (.{1,2000})$/.exec(line);
    if (!match || /(?:Error|Exception|Warning)$/.test(match[1])) continue;
    const found = classifyClause({ text: match[2], path: locToPointer(match[1]) }, types);
    // Only argument-shaped findings count as a loc report; "Error: connection refused" is not one.
    if (found && (found.category === 'argument_mismatch' || found.category === 'out_of_range')) findings.push(found);
  }
  return findings.length === lines.filter((line) => line.trim() !== '').length ? findings : [];
}

// ---------------------------------------------------------------------------------------------------------------
// Rule matching

const NAME_GROUPS = ['arg', 'arg2', 'arg3', 'arg4'] as const;

/** Matches one clause against the rule table; `clause.path` is where a structured report said the problem is. */
export function classifyClause(clause: Clause, types: readonly string[]): Finding | null {
  const text = clause.text;
  for (const rule of MESSAGE_RULES) {
    const match = matchRule(rule, text, types);
    if (match === null) continue;
    return buildFinding(rule, match, clause);
  }
  return null;
}

/** Only the rules that read the words of the message. */
function classifyWording(clause: Clause, types: readonly string[]): Finding | null {
  for (const rule of WORDING_RULES) {
    const match = matchRule(rule, clause.text, types);
    if (match !== null) return buildFinding(rule, match, clause);
  }
  return null;
}

const WORDING_RULES = MESSAGE_RULES.filter((rule) => rule.message !== undefined);
const TYPE_RULES = MESSAGE_RULES.filter((rule) => rule.message === undefined);

/** One exception name: the rules naming exact types first, then the family its words belong to. */
function classifyTypeName(qualifiedName: string, clause: Clause): Finding | null {
  const name = lastDottedSegment(qualifiedName);
  for (const rule of TYPE_RULES) {
    if (rule.errorType?.test(name)) return buildFinding(rule, [], clause);
  }
  const family = familyOfTypeName(qualifiedName);
  if (!family) return null;
  return buildFinding({ name: `type-family:${family.name}`, category: family.category, subtype: family.subtype }, [], clause);
}

function matchRule(rule: MessageRule, text: string, types: readonly string[]): RegExpExecArray | [] | null {
  if (rule.errorType && !types.some((name) => rule.errorType?.test(name))) return null;
  if (!rule.message) return rule.errorType ? [] : null;
  return rule.message.exec(text);
}

function buildFinding(rule: MessageRule, match: RegExpExecArray | [], clause: Clause): Finding {
  const groups = ('groups' in match ? match.groups : undefined) ?? {};
  const named = NAME_GROUPS.map((group) => groups[group]).find((value) => value !== undefined) ?? null;
  const statedValue = asNumber(groups.value ?? groups.value2) ?? statedValueIn(clause.text);
  const received = (groups.received ?? groups.received2 ?? '').toLowerCase();

  let subtype: Subtype | null = rule.subtype === BY_VALUE ? rangeDirection(clause.text, statedValue) : rule.subtype;
  const category = rule.category;
  // "expected number, received undefined" and Python's "not 'NoneType'" describe an absent value.
  if (subtype === 'type_mismatch' && (/^(?:undefined|none|nonetype|null)$/.test(received) || /'NoneType'/.test(clause.text))) {
    subtype = 'missing_argument';
  }

  const argumentPath = pathFor(subtype, named, clause) ?? pathNamedIn(clause.text);
  const finding: Finding = { category, subtype, argumentPath, statedValue };
  if (subtype === 'unknown_argument' && (named || argumentPath)) finding.wrongArgument = named ?? lastName(argumentPath);
  const suggested = groups.expected ?? /\b[Dd]id you mean:? ['"`]?([A-Za-z_][\w.-]{0,63})/.exec(clause.text)?.[1];
  if (suggested && subtype === 'unknown_argument') finding.intendedArgument = suggested;
  if (subtype === 'type_mismatch') {
    finding.isArrayForScalar =
      rule.isArrayForScalar === true ||
      (/^(?:array|list|tuple)$/.test(received) && !/^(?:array|list|tuple|object|dict)$/i.test(groups.expected ?? '')) ||
      /\binput_type=(?:list|tuple)\b|\bnot '?list'?$|'list' object cannot/.test(clause.text);
  }
  if (rule.isKeyLookup) finding.keyName = named ?? keyErrorName(clause.text);
  if (rule.impliedValue !== undefined) finding.impliedValue = rule.impliedValue;
  if (rule.isOverflowForNumbers) finding.isOverflowForNumbers = true;
  if (rule.subtype === BY_VALUE) finding.rangeText = clause.text;
  if (asNumber(groups.value ?? groups.value2) !== null) finding.isValueCaptured = true;
  return finding;
}

function pathFor(subtype: Subtype | null, named: string | null, clause: Clause): string | null {
  if (!named) return clause.path;
  const base = clause.path ?? '';
  const namedPointer = `/${named.split('.').join('/')}`;
  // A structured path already ends in the named argument for pydantic-style reports; Ajv's points at the parent.
  if (base.endsWith(namedPointer)) return base;
  if (subtype === 'missing_argument' || subtype === 'unknown_argument') return `${base}${namedPointer}`;
  return clause.path ?? namedPointer;
}

function lastName(pointer: string | null): string | null {
  return pointer ? pointer.slice(pointer.lastIndexOf('/') + 1) : null;
}

const GENERIC_NAME_STOPWORDS = new Set([
  'input',
  'value',
  'string',
  'number',
  'list',
  'array',
  'result',
  'it',
  'this',
  'that',
  'argument',
  'parameter',
  'field',
  'data',
  'instance',
  'object',
  'error',
  'request',
  'response',
  'tool',
  'function',
  'index',
  'date',
  'key',
  'the',
  'a',
  'an',
  'arguments',
  'parameters',
  'params',
  'args',
  'output',
  'json',
  'body',
  'text',
  'message',
  'file',
  'path',
  'operation',
  'call',
  'server',
  'connection',
  'integer',
  'float',
  'type',
]);

/** Names of arguments that messages print in well-known places. */
function pathNamedIn(text: string): string | null {
  const patterns = [
    /\(Parameter '([^'\n]{1,128})'\)/,
    /\bParameter name: ([\w.]{1,128})/,
    /\bPath: \$\.([\w.[\]]{1,200})/,
    /\bThe (?:value of )?"([\w.]{1,128})"(?: argument| property| parameter)?\b/,
    /\b(?:parameter|argument|field|property|param|arg|key|option)\s+['"`]([^'"`\n]{1,64})['"`]/i,
    /^['"`]?([A-Za-z_][\w.]{0,63})['"`]? (?:must|should|cannot|can't|may not|is required|is too|is out of|is not allowed|is invalid|exceeds)\b/,
    /\b(?:invalid|bad) (?:value )?for ['"`]?([A-Za-z_][\w.]{0,63})['"`]?/i,
    /\b([A-Za-z_]\w{0,63}) (?:argument|parameter|param) (?:must|should|is)\b/,
  ];
  for (const pattern of patterns) {
    const match = pattern.exec(text);
    if (!match) continue;
    const name = match[1].replace(/\[(\d+)\]/g, '.$1');
    if (GENERIC_NAME_STOPWORDS.has(name.toLowerCase())) continue;
    return `/${name.split('.').join('/')}`;
  }
  return null;
}

/** A failing value the message states in a form we trust (not a limit, which is also a number). */
function statedValueIn(text: string): number | null {
  const match =
    /\binput_value=([-+]?\d[\d_.e+-]{0,40})[,\]]/.exec(text) ??
    /\bActual value was ([-+]?\d[\d.e+-]{0,40})/.exec(text) ??
    /\b(?:Received|got|given|was) ([-+]?\d{1,40}(?:\.\d{1,40})?)\b(?! (?:arguments?|positional|were|was|items?|characters?))/.exec(text);
  return match ? asNumber(match[1].replace(/_/g, '')) : null;
}

function keyErrorName(text: string): string | null {
  return /^['"]([^'"\n]{1,128})['"]$/.exec(text.trim())?.[1] ?? null;
}

/** For range rules that do not say which side: stated bounds first, then the wording, then the value's sign. */
export function rangeDirection(text: string, value: number | null): Subtype {
  const indexBound = /\bfor length (\d{1,20})/.exec(text);
  if (indexBound && value !== null) return value < 0 ? 'below_minimum' : 'above_maximum';
  const between =
    /\bbetween (-?\d[\d.]{0,20}) and (-?\d[\d.]{0,20})/i.exec(text) ??
    /\[(-?\d[\d.]{0,20}),\s?(-?\d[\d.]{0,20})\]/.exec(text) ??
    /(-?\d{1,20})\s?\.\.\.?\s?(-?\d{1,20})/.exec(text) ??
    />=?\s?(-?\d[\d.]{0,20})\s?(?:&&|and)\s?<=?\s?(-?\d[\d.]{0,20})/.exec(text) ??
    /\bvalid values (-?\d{1,20}) - (-?\d{1,20})/.exec(text);
  if (between) {
    if (value !== null && value < Number(between[1])) return 'below_minimum';
    if (value !== null && value > Number(between[2])) return 'above_maximum';
  } else {
    if (
      /\b(?:less than|smaller than|at most|not exceed|no (?:more|greater) than|maximum|too (?:large|big|high|long|many))\b|<=?\s?-?\d/i.test(
        text,
      )
    )
      return 'above_maximum';
    if (
      /\b(?:greater than|larger than|at least|non-?negative|positive|non-?zero|minimum|too (?:small|low|short|few))\b|>=?\s?-?\d/i.test(
        text,
      )
    )
      return 'below_minimum';
  }
  return value !== null && value < 0 ? 'below_minimum' : 'above_maximum';
}

function compact<T>(items: readonly (T | null | undefined)[]): T[] {
  return items.filter((item): item is T => item !== null && item !== undefined);
}
