import type { RegExpEngine, RegExpLike } from 'ajv/dist/types';
import { RE2JS } from 're2js';

/**
 * The regex engine for every pattern of a user schema (`pattern`, `patternProperties` keys), given to Ajv as its
 * `code.regExp`. JavaScript's engine backtracks: `^\d*\d*\d*\d*\d*\d*\d*\d*$` against 64 digits and a `!` ran for
 * minutes. RE2 (re2js, a pure JavaScript port) runs in time linear in the input, whatever the pattern; it cannot run
 * lookaround or backreferences, and those are refused with the reason.
 *
 * JSON Schema patterns are ECMA-262, so a pattern is first read as JavaScript (with the `u` flag Ajv uses), then
 * rewritten where the two dialects differ: `.` and `\s` keep their JavaScript meaning (RE2's `.` matches `\r`,
 * its `\s` is ASCII only), a `\uD83D\uDE00` pair is one code point. One difference remains: `\S` inside a class is
 * ASCII in RE2, so `[\S]` also matches a no-break space.
 *
 * Linear is not yet cheap: the cost per input character grows with the compiled program, and `x{1000}` copies x a
 * thousand times. The program size is capped per pattern, and compiling is bounded before it starts: the program size
 * is estimated from the text first, and a pattern whose estimate is far over the cap is refused without compiling it.
 *
 * Compiled patterns belong to the schema that uses them (a LinearPatterns per schema compile), never to a cache shared
 * by every project: a process-wide cache let one project's registrations evict another's patterns, which then had to
 * be compiled again inside a 25 ms validation and never fit. They are freed with their schema, so memory is bounded
 * by the compiled-schema caches, each pattern with a small lazy-DFA memory.
 */

export const MAX_PATTERN_LENGTH = 1000;
/** RE2 instructions one pattern may compile to: `^[a-z0-9_]{1,64}$` needs 131, `[A-Za-z0-9+/]{0,1000}` about 2,000. */
export const MAX_PATTERN_PROGRAM_SIZE = 5000;
/**
 * Estimated compile work (units, see estimatePatternUnits) past which a pattern is refused without compiling, so that
 * one compile, accepted or refused, holds the event loop ~40 ms at most here. Above the program cap: the estimate
 * counts each alternative in full where RE2 factors shared prefixes (`(?:abc|abd|abe){300}`: 3,302 estimated, 902
 * compiled).
 */
export const MAX_PATTERN_COMPILE_UNITS = 8000;
// A Unicode property class (\p{L}) is read from RE2's tables, about 0.15 ms each (measured): 30 units per escape
// written, so 199 of them in one pattern (35 ms, 201 instructions) count for what they cost.
const UNICODE_CLASS_PARSE_UNITS = 30;
// Each compiled copy of such a class carries hundreds of ranges that the matcher's tables index at compile time:
// `\p{L}{0,40}` written 60 times (4,802 instructions) took 160 ms where as many plain instructions take ~25 ms.
const UNICODE_CLASS_COPY_UNITS = 8;
// Lazy-DFA memory per pattern (RE2's own accounting, close to the heap it takes) instead of re2js' 8 MB, and per
// schema: a schema may hold thousands of tiny patterns, and past its share they match without a DFA (RE2's NFA, still
// linear, slower per character).
const DFA_BYTES_PER_PATTERN = 128 * 1024;
const DFA_BYTES_PER_SCHEMA = 1024 * 1024;
/**
 * What a cache of compiled schemas may keep in compiled patterns (LinearPatterns.memoryBytes): one schema holds at most
 * ~5 MB (20,000 instructions and its DFA share), most a few KB. A schema evicted for room is compiled again on its next
 * use, before its validation's budget starts: eviction costs time once, never the outcome.
 */
export const MAX_CACHED_PATTERN_BYTES = 128 * 1024 * 1024;
/** Heap per compiled RE2 instruction, measured: 85 to 186 bytes. */
const BYTES_PER_INSTRUCTION = 200;

// JavaScript's \s, and the line terminators `.` does not match.
const JS_SPACE_MEMBERS = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
const JS_DOT = '[^\\n\\r\\u2028\\u2029]';

/** `units`: the compile work counted for the pattern before compiling it, accepted or refused (see estimatePatternUnits). */
export type PatternCheck = { ok: true; programSize: number; units: number } | { ok: false; problem: string; units: number };

interface CompiledPattern {
  regex: RE2JS;
  programSize: number;
  dfaBytes: number;
}

/** The pattern whose match is running; still set after a watchdog cut the match short. */
let runningPattern: CompiledPattern | null = null;

/**
 * The patterns of one schema, each compiled once, refusals remembered: registration's cost measure, its strict
 * compile and the schema's validate function share them, and the validate function keeps them for its lifetime.
 */
export class LinearPatterns {
  private readonly outcomes = new Map<string, CompiledPattern | UnsupportedPatternError>();
  private dfaBytes = 0;
  private programSize = 0;

  /** Ajv's `code.regExp` for this schema: throws for a pattern the linear engine refuses, so Ajv's compile fails with the reason. */
  readonly engine: RegExpEngine = Object.assign(
    (pattern: string, flags: string): RegExpLike => new LinearRegExp(pattern, flags, this.compile(pattern, flags)),
    { code: 'linearRegExp' },
  );

  /** Whether `pattern` can run on the linear engine within the caps, and how big its program is. Never throws. */
  check(pattern: string): PatternCheck {
    const units = estimatePatternUnits(pattern);
    try {
      return { ok: true, programSize: this.compile(pattern, 'u').programSize, units };
    } catch (error) {
      const problem = error instanceof UnsupportedPatternError ? error.message : `cannot be compiled: ${String(error)}`;
      return { ok: false, problem, units };
    }
  }

  /** What the compiled patterns may hold in memory at most, for caches of compiled schemas bounded by memory. */
  get memoryBytes(): number {
    return this.programSize * BYTES_PER_INSTRUCTION + this.dfaBytes;
  }

  /** Whether `pattern` was compiled or refused already, so using it again costs nothing. */
  has(pattern: string, flags = 'u'): boolean {
    return this.outcomes.has(cacheKey(pattern, flags));
  }

  private compile(pattern: string, flags: string): CompiledPattern {
    const key = cacheKey(pattern, flags);
    let outcome = this.outcomes.get(key);
    if (!outcome) {
      try {
        outcome = compileUncached(pattern, flags, Math.min(DFA_BYTES_PER_PATTERN, DFA_BYTES_PER_SCHEMA - this.dfaBytes));
        this.dfaBytes += outcome.dfaBytes;
        this.programSize += outcome.programSize;
      } catch (error) {
        if (!(error instanceof UnsupportedPatternError)) throw error;
        outcome = error;
      }
      this.outcomes.set(key, outcome);
    }
    if (outcome instanceof UnsupportedPatternError) throw outcome;
    return outcome;
  }
}

/** Whether `pattern` can run on the linear engine within the caps (compiled for this answer alone). Never throws. */
export function checkLinearPattern(pattern: string): PatternCheck {
  return new LinearPatterns().check(pattern);
}

/** A regex engine for Ajv that compiles each pattern for its one use (tests; schemas use their own LinearPatterns). */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string): RegExpLike => new LinearPatterns().engine(pattern, flags),
  { code: 'linearRegExp' },
);

/**
 * The compile work a pattern is charged before it is compiled, in units of about one RE2 instruction (~5 µs of
 * compile here): its estimated program size, plus its Unicode property classes; a pattern refused from its text alone
 * (too long, lookaround, invalid) costs its length. Linear in the pattern's length.
 */
export function estimatePatternUnits(pattern: string): number {
  if (pattern.length > MAX_PATTERN_LENGTH) return MAX_PATTERN_LENGTH;
  try {
    new RegExp(pattern, 'u');
    // every copy of a Unicode property class weighs more than one plain instruction
    const { estimatedSize } = rewriteForRe2(pattern, 1 + UNICODE_CLASS_COPY_UNITS);
    return estimatedSize + UNICODE_CLASS_PARSE_UNITS * countUnicodeClasses(pattern);
  } catch {
    return pattern.length;
  }
}

/**
 * After a watchdog terminated a validation mid-match, the pattern it was running may have a half-updated DFA cache:
 * empty it (the program itself is never written during a match, so the pattern stays compiled).
 */
export function discardInterruptedPattern(): void {
  runningPattern?.regex.re2().dfa.clearCache();
  runningPattern = null;
}

class UnsupportedPatternError extends Error {}

class LinearRegExp implements RegExpLike {
  constructor(
    private readonly source: string,
    private readonly flags: string,
    private readonly compiled: CompiledPattern,
  ) {}

  test(text: string): boolean {
    runningPattern = this.compiled;
    const isMatch = this.compiled.regex.test(text);
    runningPattern = null;
    return isMatch;
  }

  /** Ajv shares a compiled pattern between keywords by this string: it must tell patterns apart. */
  toString(): string {
    return `re2:${JSON.stringify([this.source, this.flags])}`;
  }
}

function compileUncached(pattern: string, flags: string, dfaBytes: number): CompiledPattern {
  if (flags !== 'u' && flags !== '') throw new UnsupportedPatternError(`uses flags "${flags}", which are not supported`);
  if (pattern.length > MAX_PATTERN_LENGTH) throw new UnsupportedPatternError(`is longer than ${MAX_PATTERN_LENGTH} characters`);
  try {
    new RegExp(pattern, 'u');
  } catch {
    return unsupported('is not a valid regular expression');
  }
  const { rewritten, estimatedSize } = rewriteForRe2(pattern);
  if (estimatedSize > MAX_PATTERN_COMPILE_UNITS) return tooBig();
  if (estimatePatternUnits(pattern) > MAX_PATTERN_COMPILE_UNITS) {
    return unsupported(
      `would take too long to compile (about ${estimatePatternUnits(pattern)} work units, at most ${MAX_PATTERN_COMPILE_UNITS}): repeat \\p{...} classes fewer times`,
    );
  }
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(RE2JS.translateRegExp(rewritten));
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : String(error);
    if (reason.startsWith('invalid repeat count')) {
      return unsupported(
        `repeats more than 1000 times (counting nested repetitions together), which the linear-time regex engine refuses (${reason})`,
      );
    }
    return unsupported(`is not supported by the linear-time regex engine (${reason})`);
  }
  const programSize = regex.re2().numberOfInstructions();
  if (programSize > MAX_PATTERN_PROGRAM_SIZE) return tooBig();
  const dfa = regex.re2().dfa;
  dfa.stateBudget = dfaBytes;
  dfa.memBudget = dfaBytes;
  return { regex, programSize, dfaBytes };
}

function unsupported(message: string): never {
  throw new UnsupportedPatternError(message);
}

function tooBig(): never {
  throw new UnsupportedPatternError(
    `compiles to more than ${MAX_PATTERN_PROGRAM_SIZE} regex instructions (large counted repetitions like {1000}): too expensive to run`,
  );
}

/** `\p{...}` and `\P{...}` escapes, in or out of classes; an escaped backslash is not one. */
function countUnicodeClasses(pattern: string): number {
  let count = 0;
  for (let i = 0; i < pattern.length - 1; i++) {
    if (pattern[i] !== '\\') continue;
    if (pattern[i + 1] === 'p' || pattern[i + 1] === 'P') count++;
    i++;
  }
  return count;
}

function cacheKey(pattern: string, flags: string): string {
  return `${flags}/${pattern}`;
}

interface Group {
  /** Program size of the finished alternatives, and of the one being read. */
  alternatives: number;
  current: number;
  /** Size of the last atom of the current alternative, which a quantifier multiplies. */
  last: number;
  isCapturing: boolean;
}

/**
 * One pass over a valid `u`-mode JavaScript pattern: rewrites what RE2 reads differently, refuses what it cannot run
 * with a reason a person understands, and estimates the compiled program size (each Unicode property class counted
 * as `unicodeClassSize` instructions: 1 for the size, more for the compile work).
 */
function rewriteForRe2(pattern: string, unicodeClassSize = 1): { rewritten: string; estimatedSize: number } {
  let out = '';
  const groups: Group[] = [{ alternatives: 0, current: 0, last: 0, isCapturing: false }];
  const top = () => groups[groups.length - 1];
  const atom = (text: string, size = 1) => {
    out += text;
    top().current += size;
    top().last = size;
  };

  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '\\') {
      const escape = readEscape(pattern, i, false);
      atom(escape.text, countUnicodeClasses(escape.text) > 0 ? unicodeClassSize : 1);
      i = escape.end;
    } else if (char === '[') {
      const end = endOfClass(pattern, i);
      const cls = pattern.slice(i, end + 1);
      atom(rewriteClass(cls), countUnicodeClasses(cls) > 0 ? unicodeClassSize : 1);
      i = end;
    } else if (char === '(') {
      if (/^\(\?<?[=!]/.test(pattern.slice(i, i + 4)))
        unsupported('uses lookahead or lookbehind, which the linear-time regex engine cannot run');
      groups.push({ alternatives: 0, current: 0, last: 0, isCapturing: pattern[i + 1] !== '?' || pattern[i + 2] === '<' });
      out += char;
    } else if (char === ')') {
      const group = groups.pop()!;
      out += char;
      const size = group.alternatives + group.current + (group.isCapturing ? 2 : 0);
      top().current += size;
      top().last = size;
    } else if (char === '|') {
      top().alternatives += top().current + 1;
      top().current = 0;
      top().last = 0;
      out += char;
    } else if (char === '*' || char === '+' || char === '?') {
      out += char;
      repeatLast(top(), char === '+' ? 1 : 0, char === '?' ? 1 : Infinity);
      if (pattern[i + 1] === '?') out += pattern[++i];
    } else if (char === '{' && /^\{\d+(,\d*)?\}/.test(pattern.slice(i))) {
      const quantifier = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i))!;
      const min = Number(quantifier[1]);
      const max = quantifier[2] === undefined ? min : quantifier[3] === '' ? Infinity : Number(quantifier[3]);
      out += quantifier[0];
      repeatLast(top(), min, max);
      i += quantifier[0].length - 1;
      if (pattern[i + 1] === '?') out += pattern[++i];
    } else if (char === '.') {
      atom(JS_DOT);
    } else {
      atom(char);
    }
  }
  const root = groups[0];
  return { rewritten: out, estimatedSize: root.alternatives + root.current + 2 };
}

/** RE2 spells x{n,m} as n copies of x and m-n optional ones (one more instruction each); x{n,} ends in x*. */
function repeatLast(group: Group, min: number, max: number): void {
  const x = group.last;
  const repeated = max === Infinity ? min * x + x + 1 : min * x + (max - min) * (x + 1);
  group.current += repeated - x;
  group.last = repeated;
}

/** The escape at `start` (a backslash), rewritten for RE2, and the index of its last character. */
function readEscape(pattern: string, start: number, isInClass: boolean): { text: string; end: number } {
  const next = pattern[start + 1];
  if (/[1-9]/.test(next) || next === 'k') unsupported('uses a backreference, which the linear-time regex engine cannot run');
  if (next === 's') return { text: isInClass ? JS_SPACE_MEMBERS : `[${JS_SPACE_MEMBERS}]`, end: start + 1 };
  if (next === 'S' && !isInClass) return { text: `[^${JS_SPACE_MEMBERS}]`, end: start + 1 };
  // inside a class, \b is a backspace in JavaScript
  if (next === 'b' && isInClass) return { text: '\\x08', end: start + 1 };
  const pair = /^\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})/i.exec(pattern.slice(start));
  if (pair) {
    const codePoint = String.fromCharCode(parseInt(pair[1], 16), parseInt(pair[2], 16)).codePointAt(0)!;
    return { text: `\\u{${codePoint.toString(16)}}`, end: start + pair[0].length - 1 };
  }
  const long = /^\\(u\{[0-9a-f]+\}|u[0-9a-f]{4}|x[0-9a-f]{2}|c[a-z]|[pP]\{[^}]*\})/i.exec(pattern.slice(start));
  if (long) return { text: long[0], end: start + long[0].length - 1 };
  return { text: pattern.slice(start, start + 2), end: start + 1 };
}

/** In JavaScript the first unescaped `]` closes a class, even right after `[`: `[]` matches nothing, `[^]` anything. */
function endOfClass(pattern: string, start: number): number {
  for (let i = start + 1; i < pattern.length; i++) {
    if (pattern[i] === '\\') i += 1;
    else if (pattern[i] === ']') return i;
  }
  return pattern.length - 1;
}

function rewriteClass(cls: string): string {
  if (cls === '[]') return '[^\\x00-\\x{10FFFF}]';
  if (cls === '[^]') return '[\\x00-\\x{10FFFF}]';
  let out = '';
  for (let i = 0; i < cls.length; i++) {
    if (cls[i] !== '\\') {
      out += cls[i];
      continue;
    }
    const escape = readEscape(cls, i, true);
    out += escape.text;
    i = escape.end;
  }
  return out;
}
