import { isPlainObject, parseJsonOrPythonLiteral } from './argument-values';
import { classifyClause } from './clause-classifier';
import { type Finding, selectPrimaryFinding, toPointer } from './finding';
import { issueToFindings, pydanticToFinding } from './validator-issues';

// Reports that list several problems, each with where it is: JSON arrays of issues, pydantic's text, zod's pretty
// print, JSON Schema validators' location lines, Ajv's errorsText, and "loc: message" lines. Read line by line.

const MAX_CLAUSES = 50;

/** The first reader that recognizes the text decides; its findings are reduced to the one to coach on first. */
export function readStructuredReport(text: string, types: readonly string[], hasLocLines: boolean): Finding | null {
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
