// The guard's check, run in the agent's process before a tool runs (README "Guarded execution"): arguments against the
// tool's JSON Schema (Ajv, compiled once per description version) and the renames and limits the registry learned.
// Safe corrections are applied; unsafe calls are refused with the words POST /v1/tools/:name/validate uses. Pure.
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import { GuardMode, GuardSection } from './wire';

export type CorrectionKind = 'rename' | 'unwrap_array' | 'numeric_string';

export interface Correction {
  original: Record<string, unknown>;
  corrected: Record<string, unknown>;
  kinds: CorrectionKind[];
}

/** run: call the tool with `args` as they are; correct: with `correction.corrected`; refuse: not at all, say `message`. */
export type GuardVerdict = { action: 'run' } | { action: 'correct'; correction: Correction } | { action: 'refuse'; message: string };

const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean']);
// An exact decimal: what the model meant as a number and wrote in quotes, with nothing a conversion would lose.
const EXACT_NUMBER = /^-?(?:0|[1-9]\d{0,14})(?:\.\d{1,15})?$/;
// The refusal names the values a model should call the tool with, one call each; a long list is cut.
const MAX_LISTED_ITEMS = 10;
const MAX_ITEM_CHARS = 40;
const RUN: GuardVerdict = { action: 'run' };

interface Property {
  name: string;
  types: string[];
}

/** One tool's guard: built once per description version, then `check` per call. */
export class ArgumentGuard {
  private readonly validate: ValidateFunction | null;
  private readonly properties: Property[];
  private readonly declared: Set<string>;
  private readonly learnedRenames: Map<string, string>;

  /** `compileError` is set when the schema could not be compiled: then only names and learned limits are checked. */
  readonly compileError: string | null;

  constructor(
    readonly toolName: string,
    parameters: Record<string, unknown>,
    private readonly section: GuardSection | null,
    readonly mode: GuardMode,
  ) {
    const compiled = compileSchema(parameters);
    this.validate = compiled.validate;
    this.compileError = compiled.error;
    this.properties = propertiesOf(parameters);
    this.declared = new Set(this.properties.map((property) => property.name));
    this.learnedRenames = new Map((section?.renames ?? []).map((rename) => [rename.wrong, rename.intended]));
  }

  check(args: unknown): GuardVerdict {
    if (this.mode === 'off' || !isObject(args)) return RUN;
    const problems = this.problemsOf(args);
    if (problems.length === 0 || this.mode === 'report') return RUN;
    const fixed = this.correct(args);
    const isFixed = fixed !== null && this.problemsOf(fixed.corrected).length === 0;
    if (isFixed && this.mode === 'correct') return { action: 'correct', correction: fixed };
    if (this.mode === 'strict' || problems.some((problem) => problem.isUnsafe)) {
      return { action: 'refuse', message: this.describe(args, problems, isFixed ? fixed : null) };
    }
    return RUN;
  }

  /**
   * What the schema and the learned limits find wrong with `args`, whatever the mode: the local check a client falls
   * back to when the server did not check a call (README "Validation"). Empty when nothing is wrong.
   */
  findProblems(args: unknown): LocalProblem[] {
    if (!isObject(args))
      return [{ category: 'argument_mismatch', path: '', message: 'arguments must be a JSON object of argument names to values' }];
    return this.problemsOf(args).map(({ category, path, message }) => ({ category, path, message }));
  }

  private problemsOf(args: Record<string, unknown>): Problem[] {
    const problems: Problem[] = [];
    if (this.validate && !this.validate(args)) {
      for (const error of this.validate.errors ?? []) problems.push(problemOf(error, args));
    }
    for (const limit of this.section?.limits ?? []) {
      const value = valueAt(args, limit.path);
      if (typeof value !== 'number' || !isBeyond(value, limit)) continue;
      const side =
        limit.bound === 'upper'
          ? limit.isInclusive
            ? `${limit.value} or more`
            : `above ${limit.value}`
          : limit.isInclusive
            ? `${limit.value} or less`
            : `below ${limit.value}`;
      const calls = limit.evidenceCount === 1 ? 'call' : 'calls';
      problems.push({
        message: `'${nameOf(limit.path)}' is ${value}; ${side} fails (${limit.reason}), learned from ${limit.evidenceCount} failed ${calls}`,
        isUnsafe: true,
        category: 'out_of_range',
        path: limit.path,
      });
    }
    return problems;
  }

  /** Renames, one-element arrays unwrapped, exact numeric strings read as numbers; null when nothing applies or one is unsafe. */
  private correct(args: Record<string, unknown>): Correction | null {
    if (this.declared.size === 0) return null;
    const corrected: Record<string, unknown> = { ...args };
    const kinds = new Set<CorrectionKind>();
    for (const wrong of Object.keys(args)) {
      if (this.declared.has(wrong)) continue;
      const intended = this.intendedName(wrong, corrected);
      if (!intended) continue;
      setOwn(corrected, intended, corrected[wrong]);
      delete corrected[wrong];
      kinds.add('rename');
    }
    for (const { name, types } of this.properties) {
      const value = corrected[name];
      if (!Object.hasOwn(corrected, name) || !types.every((type) => SCALAR_TYPES.has(type)) || types.length === 0) continue;
      if (Array.isArray(value)) {
        if (value.length !== 1) return null;
        setOwn(corrected, name, value[0]);
        kinds.add('unwrap_array');
      }
      const scalar = corrected[name];
      if (typeof scalar === 'string' && !types.includes('string') && isExactNumber(scalar, types)) {
        setOwn(corrected, name, Number(scalar));
        kinds.add('numeric_string');
      }
    }
    return kinds.size === 0 ? null : { original: args, corrected, kinds: [...kinds] };
  }

  /** A learned rename, else a name that differs only in case, separators or a plural s, when it is the only such one. */
  private intendedName(wrong: string, args: Record<string, unknown>): string | undefined {
    const isFree = (name: string) => this.declared.has(name) && !Object.hasOwn(args, name);
    const learned = this.learnedRenames.get(wrong);
    if (learned !== undefined && isFree(learned)) return learned;
    const key = normalizeName(wrong);
    const free = [...this.declared].filter(isFree);
    for (const isMatch of [(other: string) => other === key, (other: string) => singularOf(other) === singularOf(key)]) {
      const found = free.filter((name) => isMatch(normalizeName(name)));
      if (found.length === 1) return found[0];
      if (found.length > 1) return undefined;
    }
    return undefined;
  }

  /** validate's words for what is wrong; several items for one value say how to call instead; `fixed`: a valid correction. */
  private describe(args: Record<string, unknown>, problems: Problem[], fixed: Correction | null): string {
    const messages: string[] = [];
    const intendedOf = new Map<string, string>();
    for (const wrong of Object.keys(args)) {
      const intended = this.declared.has(wrong) ? undefined : this.intendedName(wrong, args);
      if (intended) intendedOf.set(intended, wrong);
    }
    for (const { name, types } of this.properties) {
      const sentAs = intendedOf.get(name);
      const value = args[sentAs ?? name];
      if (!Array.isArray(value) || types.length === 0 || !types.every((type) => SCALAR_TYPES.has(type))) continue;
      const noun = types.join(' or ');
      messages.push(
        sentAs
          ? `'${sentAs}' is not a parameter of this tool; the parameter is '${name}' (one ${noun})${arrayAdvice(value, noun)}`
          : `'${name}' must be ${noun}, not an array${arrayAdvice(value, noun)}`,
      );
    }
    if (messages.length === 0) {
      for (const [intended, wrong] of intendedOf)
        messages.push(`'${wrong}' is not a parameter of this tool; the parameter is '${intended}'`);
    }
    // a problem already said under its argument's name is not said again
    for (const problem of problems) {
      if (problem.name === undefined || !messages.some((message) => message.includes(`'${problem.name}'`))) messages.push(problem.message);
    }
    const fix = fixed ? `; call it as ${JSON.stringify(fixed.corrected)}` : '';
    return `${this.toolName} was not called: ${[...new Set(messages)].join('; ')}${fix}`;
  }
}

/** A problem the local check found: the category validate would give it, where (a JSON Pointer) and what. */
export interface LocalProblem {
  category: 'argument_mismatch' | 'out_of_range';
  path: string;
  message: string;
}

interface Problem extends LocalProblem {
  /** Several values for one, a value beyond a limit, a missing argument: the tool would fail or do the wrong thing. */
  isUnsafe: boolean;
  name?: string;
}

function problemOf(error: ErrorObject, args: Record<string, unknown>): Problem {
  const at = error.instancePath;
  if (error.keyword === 'required') {
    const name = String((error.params as { missingProperty?: unknown }).missingProperty ?? '');
    return { message: `'${name}' is required`, isUnsafe: true, name, category: 'argument_mismatch', path: `${at}/${pointerSegment(name)}` };
  }
  if (error.keyword === 'additionalProperties') {
    const name = String((error.params as { additionalProperty?: unknown }).additionalProperty ?? '');
    const path = `${at}/${pointerSegment(name)}`;
    return { message: `'${name}' is not a parameter of this tool`, isUnsafe: false, name, category: 'argument_mismatch', path };
  }
  const name = at === '' ? undefined : nameOf(at);
  const isBound = ['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum'].includes(error.keyword);
  const isSeveral = error.keyword === 'type' && Array.isArray(valueAt(args, at));
  const subject = name === undefined ? 'arguments' : `'${name}'`;
  const category =
    isBound || ['maxLength', 'minLength', 'enum', 'const', 'pattern', 'format'].includes(error.keyword)
      ? 'out_of_range'
      : 'argument_mismatch';
  return { message: `${subject} ${error.message ?? 'is invalid'}`, isUnsafe: isBound || isSeveral, name, category, path: at };
}

function arrayAdvice(value: readonly unknown[], noun: string): string {
  if (value.length === 1) return '; pass the single item itself';
  const listed = value.slice(0, MAX_LISTED_ITEMS).map((item) => truncate(JSON.stringify(item) ?? String(item), MAX_ITEM_CHARS));
  const more = value.length > MAX_LISTED_ITEMS ? `, and ${value.length - MAX_LISTED_ITEMS} more` : '';
  return `: pass one ${noun} per call: call this tool once per item, for each of ${listed.join(', ')}${more}`;
}

function compileSchema(parameters: Record<string, unknown>): { validate: ValidateFunction | null; error: string | null } {
  try {
    const dialect = typeof parameters.$schema === 'string' ? parameters.$schema : '';
    const options = { allErrors: true, strict: false, validateFormats: false, validateSchema: false } as const;
    const ajv = dialect.includes('2020-12') ? new Ajv2020(options) : dialect.includes('2019-09') ? new Ajv2019(options) : new Ajv(options);
    const { $schema: _dialect, ...schema } = parameters;
    return { validate: ajv.compile(schema), error: null };
  } catch (error) {
    return { validate: null, error: error instanceof Error ? error.message : String(error) };
  }
}

function propertiesOf(parameters: Record<string, unknown>): Property[] {
  const properties = parameters.properties;
  if (!isObject(properties)) return [];
  return Object.entries(properties).map(([name, schema]) => ({ name, types: typesOf(schema) }));
}

function typesOf(schema: unknown): string[] {
  if (!isObject(schema)) return [];
  const type = schema.type;
  if (typeof type === 'string') return [type];
  return Array.isArray(type) ? type.filter((entry): entry is string => typeof entry === 'string' && entry !== 'null') : [];
}

function isExactNumber(text: string, types: string[]): boolean {
  if (!EXACT_NUMBER.test(text)) return false;
  const value = Number(text);
  if (String(value) !== text) return false;
  return types.includes('number') || (types.includes('integer') && Number.isInteger(value));
}

function isBeyond(value: number, limit: GuardSection['limits'][number]): boolean {
  if (limit.bound === 'upper') return limit.isInclusive ? value >= limit.value : value > limit.value;
  return limit.isInclusive ? value <= limit.value : value < limit.value;
}

function valueAt(args: Record<string, unknown>, pointer: string): unknown {
  let current: unknown = args;
  for (const segment of pointer.split('/').slice(1)) {
    if (!isObject(current)) return undefined;
    const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

function pointerSegment(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

function nameOf(pointer: string): string {
  return pointer
    .slice(pointer.lastIndexOf('/') + 1)
    .replace(/~1/g, '/')
    .replace(/~0/g, '~');
}

function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[\s_\-.]+/g, '');
}

function singularOf(key: string): string {
  if (key.length > 4 && key.endsWith('ies')) return `${key.slice(0, -3)}y`;
  if (key.length > 4 && /(?:ss|sh|ch|x|z)es$/.test(key)) return key.slice(0, -2);
  if (key.length > 3 && key.endsWith('s') && !key.endsWith('ss')) return key.slice(0, -1);
  return key;
}

function truncate(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 1)}…`;
}

/** Assignment would call the `__proto__` setter for a parameter of that name; a defined property is plain data. */
function setOwn(target: Record<string, unknown>, name: string, value: unknown) {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
