import { FieldError } from '../infra/http/api-error';
import { firstUnstorableValue } from '../infra/http/storable-values';

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
