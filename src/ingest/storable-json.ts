import { FieldError } from '../infra/http/api-error';
import { pointerSegment, unstorableTextReason } from '../infra/http/storable-values';

const NOT_FINITE = 'must be a finite number (1e309 and larger overflow to Infinity, which JSON cannot carry)';

/**
 * The first value in an event that would not be kept as it was sent, as a field error at its path: text with NUL or a
 * lone surrogate (value or key), a number that is not finite (JSON.parse reads 1e309 as Infinity, and JSON.stringify
 * writes Infinity as null). Null when everything is storable as it is. A `__proto__` key is storable: JSON.parse makes
 * it a plain own property, and it is copied only with defineProperty.
 */
export function firstUnstorableValue(value: unknown, path: string): FieldError | null {
  const pending: Array<[unknown, string]> = [[value, path]];
  while (pending.length > 0) {
    const [node, at] = pending.pop()!;
    if (typeof node === 'string') {
      const reason = unstorableTextReason(node);
      if (reason) return { path: at, message: reason };
    } else if (typeof node === 'number') {
      if (!Number.isFinite(node)) return { path: at, message: NOT_FINITE };
    } else if (Array.isArray(node)) {
      for (let index = node.length - 1; index >= 0; index--) pending.push([node[index], `${at}/${index}`]);
    } else if (node !== null && typeof node === 'object') {
      const entries = Object.entries(node);
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, child] = entries[index];
        const childPath = `${at}/${pointerSegment(key)}`;
        const reason = unstorableTextReason(key);
        if (reason) return { path: childPath, message: `has a key that ${reason}` };
        pending.push([child, childPath]);
      }
    }
  }
  return null;
}

/**
 * Arguments a model wrote as JSON text are read as JSON by the worker (argument names become stored columns), so the
 * JSON inside the text must be storable too. Text that is not JSON is judged as text only.
 */
export function firstUnstorableInJsonText(text: string, path: string): FieldError | null {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return null;
  }
  const problem = firstUnstorableValue(parsed, '');
  return problem ? { path, message: `is JSON text whose value at "${problem.path || '/'}" ${problem.message}` } : null;
}
