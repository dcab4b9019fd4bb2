import { asNumber } from './argument-values';
import { lastDottedSegment } from './cause-chain';
import type { Subtype } from './diagnosis.types';
import { familyOfTypeName } from './exception-type-families';
import type { Finding } from './finding';
import { BY_VALUE, MESSAGE_RULES, type MessageRule } from './message-rules';

// One clause of a message against the rule table (message-rules.ts): the first rule whose wording (and exception
// type, when it names one) matches decides, and the finding takes the names, values and path the clause states.

export interface Clause {
  text: string;
  /** Where a structured report said the problem is, as a JSON Pointer into the arguments. */
  path: string | null;
}

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
export function classifyWording(clause: Clause, types: readonly string[]): Finding | null {
  for (const rule of WORDING_RULES) {
    const match = matchRule(rule, clause.text, types);
    if (match !== null) return buildFinding(rule, match, clause);
  }
  return null;
}

const WORDING_RULES = MESSAGE_RULES.filter((rule) => rule.message !== undefined);
const TYPE_RULES = MESSAGE_RULES.filter((rule) => rule.message === undefined);

/** One exception name: the rules naming exact types first, then the family its words belong to. */
export function classifyTypeName(qualifiedName: string, clause: Clause): Finding | null {
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
  const received = (groups.received ?? groups.received2 ?? groups.received3 ?? '').toLowerCase();

  let subtype: Subtype | null = rule.subtype === BY_VALUE ? rangeDirection(clause.text, statedValue) : rule.subtype;
  const category = rule.category;
  // "expected number, received undefined" and Python's "not 'NoneType'" describe an absent value.
  if (subtype === 'type_mismatch' && (/^(?:undefined|none|nonetype|null|nil)$/.test(received) || /'NoneType'/.test(clause.text))) {
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
    /- at `\$\.([\w.[\]]{1,200})`/,
    /@ \$\.([\w.[\]]{1,200})/,
    /^\{'([\w.]{1,64})': \[/,
    /^Array\[([\w.]{1,64})\]:/,
    /^At path: ([\w.]{1,128}) --/,
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
    /\bbetween `?(-?\d[\d.]{0,20})`? and `?(-?\d[\d.]{0,20})/i.exec(text) ??
    /\bgreater than (?:or equal to )?(-?\d[\d.]{0,20}) and less than (?:or equal to )?(-?\d[\d.]{0,20})/i.exec(text) ??
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
