import { decodePointerSegment } from './finding';

// Reading the arguments a model produced: they arrive as an object, a JSON string, or (from LangChain Python
// callbacks and LangGraph error text) a Python repr such as {'a': 'x', 'flag': True}.

const MAX_PARSED_CHARS = 65536;

export type ParsedArguments =
  | { kind: 'object'; value: Record<string, unknown> }
  | { kind: 'not-object'; value: unknown }
  | { kind: 'unparseable' }
  | { kind: 'absent' };

export function parseArguments(raw: unknown): ParsedArguments {
  if (raw === undefined || raw === null) return { kind: 'absent' };
  if (typeof raw === 'string') {
    if (raw.trim() === '') return { kind: 'unparseable' };
    const parsed = parseJsonOrPythonLiteral(raw);
    if (!parsed.ok) return { kind: 'unparseable' };
    return isPlainObject(parsed.value) ? { kind: 'object', value: parsed.value } : { kind: 'not-object', value: parsed.value };
  }
  return isPlainObject(raw) ? { kind: 'object', value: raw } : { kind: 'not-object', value: raw };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function parseJsonOrPythonLiteral(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.length > MAX_PARSED_CHARS) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    const converted = pythonLiteralToJson(text);
    if (converted === null) return { ok: false };
    try {
      return { ok: true, value: JSON.parse(converted) as unknown };
    } catch {
      return { ok: false };
    }
  }
}

/**
 * Rewrites a Python literal (dict/list/str/number/True/False/None) as JSON, or null when it is not one.
 * A character scanner rather than regexes, so quotes inside strings are handled and the work stays linear.
 */
function pythonLiteralToJson(text: string): string | null {
  const source = text.trim();
  if (!/^[{[]/.test(source)) return null;
  let out = '';
  let index = 0;
  while (index < source.length) {
    const char = source[index];
    if (char === "'" || char === '"') {
      let end = index + 1;
      let content = '';
      while (end < source.length && source[end] !== char) {
        if (source[end] === '\\' && end + 1 < source.length) {
          const next = source[end + 1];
          content += next === "'" ? "'" : `\\${next}`;
          end += 2;
          continue;
        }
        content += source[end] === '"' ? '\\"' : source[end];
        end++;
      }
      if (end >= source.length) return null;
      out += `"${content}"`;
      index = end + 1;
      continue;
    }
    const word = /^[A-Za-z_]\w*/.exec(source.slice(index, index + 16));
    if (word) {
      const replacement = { True: 'true', False: 'false', None: 'null' }[word[0]];
      if (replacement === undefined) return null;
      out += replacement;
      index += word[0].length;
      continue;
    }
    out += char === '(' ? '[' : char === ')' ? ']' : char;
    index++;
  }
  return out;
}

/** Resolves a JSON Pointer inside the arguments; undefined when any segment is missing. */
export function valueAtPointer(root: unknown, pointer: string | null): unknown {
  if (pointer === null || pointer === '') return root;
  let current: unknown = root;
  for (const rawSegment of pointer.split('/').slice(1)) {
    const segment = decodePointerSegment(rawSegment);
    if (Array.isArray(current)) {
      current = /^\d+$/.test(segment) ? current[Number(segment)] : undefined;
    } else if (isPlainObject(current) && Object.prototype.hasOwnProperty.call(current, segment)) {
      current = current[segment];
    } else {
      return undefined;
    }
  }
  return current;
}

/** A finite number, or a string that is exactly one (tools often receive "25" and coerce it). */
export function asNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string' && /^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?\s*$/i.test(value)) {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : null;
  }
  return null;
}

/** The top-level argument holding the only numeric value, e.g. {n: 25, unit: "x"} -> ["n", 25]. */
export function singleNumericArgument(args: Record<string, unknown>): [string, number] | null {
  const numeric = Object.entries(args).filter(([, value]) => typeof value === 'number' && Number.isFinite(value));
  return numeric.length === 1 ? [numeric[0][0], numeric[0][1] as number] : null;
}
